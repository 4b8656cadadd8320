package safefs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "rc")
	os.WriteFile(outside, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(outside, link)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(t.TempDir(), "new"), dangling)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	for path, found := range map[string]string{link: "symbolic link", dangling: "symbolic link", fifo: "named pipe", sub: "directory"} {
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND | os.O_CREATE} {
			f, err := OpenFile(path, flag, 0o600)
			if err == nil {
				f.Close()
				t.Errorf("OpenFile(%s, %#x) opened it", path, flag)
				continue
			}
			if !IsOdd(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), found) {
				t.Errorf("OpenFile(%s) = %v, want an error naming it as a %s", path, err, found)
			}
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("the link's target changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(outside), "new")); err == nil {
		t.Error("a dangling link's target was created")
	}
}

func TestMkdirAllAndBelowRefuseALinkedFolder(t *testing.T) {
	root, away := t.TempDir(), t.TempDir()
	// The root itself may be a link (/tmp on macOS).
	linkedRoot := filepath.Join(t.TempDir(), "root")
	os.Symlink(root, linkedRoot)
	if err := MkdirAll(linkedRoot, "a/b", 0o700); err != nil {
		t.Fatalf("MkdirAll below a linked root: %v", err)
	}
	os.Symlink(away, filepath.Join(root, "a", "c"))
	for _, err := range []error{MkdirAll(linkedRoot, "a/c/d", 0o700), Below(linkedRoot, "a/c/d")} {
		if !IsOdd(err) || !strings.Contains(err.Error(), filepath.Join("a", "c")) {
			t.Errorf("got %v, want an error naming a/c", err)
		}
	}
	if ents, _ := os.ReadDir(away); len(ents) != 0 {
		t.Errorf("a folder was made through the link: %v", ents)
	}
	if err := Below(linkedRoot, "a/b/missing"); err != nil {
		t.Errorf("Below of a missing folder: %v", err)
	}
}

func TestOpenBelowMakesFoldersAndFollowsNoLinkOnTheWay(t *testing.T) {
	root, away := t.TempDir(), t.TempDir()
	f, err := OpenBelow(root, "a/b/f", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600, 0o700)
	if err != nil {
		t.Fatalf("OpenBelow making a/b: %v", err)
	}
	f.Close()
	os.Symlink(away, filepath.Join(root, "a", "l"))
	os.Symlink(filepath.Join(away, "x"), filepath.Join(root, "a", "b", "g"))
	for rel, at := range map[string]string{"a/l/f": "a/l", "a/l/c/f": "a/l", "a/b/g": "a/b/g"} {
		f, err := OpenBelow(root, rel, os.O_WRONLY|os.O_CREATE, 0o600, 0o700)
		if err == nil {
			f.Close()
		}
		if !IsOdd(err) || !strings.Contains(err.Error(), filepath.Join(root, at)) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("OpenBelow(%s) = %v, want a refusal naming %s as a symbolic link", rel, err, at)
		}
		if err := SymlinkBelow("t", root, rel, 0o700); !IsOdd(err) && !strings.Contains(rel, "g") {
			t.Errorf("SymlinkBelow(%s) = %v, want a refusal", rel, err)
		}
	}
	if ents, _ := os.ReadDir(away); len(ents) != 0 {
		t.Errorf("something was made through a link: %v", ents)
	}
	if _, err := OpenBelow(root, "../x", os.O_RDONLY, 0, 0); err == nil {
		t.Error("OpenBelow opened a path outside its root")
	}
}
