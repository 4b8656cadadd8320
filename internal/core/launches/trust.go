package launches

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// trusted checks the records' folder before anything in it is read: a
// folder (not a link) of this user that no one else may write to.
// Missing is fs.ErrNotExist: no records.
func (s Store) trusted() error {
	if err := safefs.Dir(s.Dir); err != nil {
		if os.IsNotExist(err) {
			return err
		}
		return fmt.Errorf("launch records: %w", err)
	}
	st, err := os.Lstat(s.Dir)
	if err != nil {
		return err
	}
	if err := ownPrivate(st, "0700"); err != nil {
		return fmt.Errorf("launch records' folder %s: %w", s.Dir, err)
	}
	return nil
}

// ownPrivate refuses what another user owns or may write: paneteam
// makes the folder 0700 and each record 0600, so anything else was made
// or changed by someone else.
func ownPrivate(st fs.FileInfo, want string) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("owned by uid %d, not by you (uid %d): not believed; remove it, paneteam writes its own as %s", sys.Uid, os.Getuid(), want)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("mode %v lets others write it: not believed; remove it (paneteam writes its own as %s)", st.Mode().Perm(), want)
	}
	return nil
}
