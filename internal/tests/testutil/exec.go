package testutil

import (
	"os"
	"syscall"
	"testing"
)

// WriteExecutable writes a script or program at path, mode 0755, so that
// it can be run at once even while other tests start processes: a child
// forked while the file is open for writing holds it open until it execs,
// and running the file then fails with "text file busy" (ETXTBSY). Go
// forks holding syscall.ForkLock for writing; writing the file under it
// for reading keeps every fork out of that window.
func WriteExecutable(t testing.TB, path string, content []byte) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, content, 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}
