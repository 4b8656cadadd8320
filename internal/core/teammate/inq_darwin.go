package teammate

// inputQueued is the ioctl that counts the bytes a terminal holds for its
// reader: FIONREAD (<sys/filio.h>), which golang.org/x/sys/unix does not
// name for macOS.
const inputQueued = 0x4004667f
