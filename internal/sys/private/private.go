// Package private checks that what paneteam is about to believe was made
// by this user and can be changed by no one else: a launch record names a
// program 'paneteam resume' runs again, the teammate router's folder the
// Claude it execs. paneteam makes such folders 0700 and their files 0600,
// so another owner, or a mode that lets others write, means someone else
// made or could have changed it.
package private

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// Check refuses st when another user owns it or others may write it.
func Check(st fs.FileInfo) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("owned by uid %d, not by you (uid %d)", sys.Uid, os.Getuid())
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("mode %v lets others write it", st.Mode().Perm())
	}
	return nil
}

// Dir checks that path is a folder, not a link to one (a *safefs.OddError
// otherwise), that passes Check. A folder that is not there is
// fs.ErrNotExist.
func Dir(path string) error {
	if err := safefs.Dir(path); err != nil {
		return err
	}
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return Check(st)
}
