package teammate

import "golang.org/x/sys/unix"

// inputQueued is the ioctl that counts the bytes a terminal holds for its
// reader.
const inputQueued = unix.TIOCINQ
