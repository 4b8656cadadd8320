package private

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

func TestDirRefusesWhatOthersMayChange(t *testing.T) {
	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	if err := os.Mkdir(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Dir(mine); err != nil {
		t.Errorf("a 0700 folder of mine: %v", err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := Dir(open); err == nil || !strings.Contains(err.Error(), "lets others write it") {
		t.Errorf("a folder anyone may write: %v", err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	if err := Dir(link); !safefs.IsOdd(err) {
		t.Errorf("a link to a private folder: %v; want it refused as a link", err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Dir(file); !safefs.IsOdd(err) {
		t.Errorf("a file: %v; want it refused as no folder", err)
	}
	if err := Dir(filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v; want fs.ErrNotExist", err)
	}
	if os.Getuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if err := Dir(theirs); err == nil || !strings.Contains(err.Error(), "owned by uid 4242, not by you") {
			t.Errorf("a folder of another user's: %v", err)
		}
	}
}
