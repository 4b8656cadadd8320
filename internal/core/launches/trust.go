package launches

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/paneteam/paneteam/internal/sys/private"
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

// ownPrivate refuses what another user owns or may write (private.Check):
// paneteam makes the folder 0700 and each record 0600, so anything else
// was made or changed by someone else, and want says which.
func ownPrivate(st fs.FileInfo, want string) error {
	if err := private.Check(st); err != nil {
		return fmt.Errorf("%w: not believed; remove it (paneteam writes its own as %s)", err, want)
	}
	return nil
}
