package program

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string, mode os.FileMode) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := filepath.Join(dir, "a")
	b := filepath.Join(dir, "b")
	runs := mk("b/tool", 0o755)
	mk("a/tool", 0o644) // not executable: skipped
	mk("a/other", 0o700)
	if err := os.MkdirAll(filepath.Join(dir, "a", "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(b)

	sep := string(filepath.ListSeparator)
	for _, c := range []struct {
		name, prog, path, want string
	}{
		{"first folder that holds it executable", "tool", a + sep + b, runs},
		{"earlier folder wins", "other", a + sep + b, filepath.Join(a, "other")},
		{"a folder is not a program", "folder", a, ""},
		{"empty entry is not the current folder", "tool", sep + a, ""},
		{"relative entry is skipped", "tool", "." + sep + "../b", ""},
		{"missing everywhere", "nothing", a + sep + b, ""},
		{"empty PATH", "tool", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Find(c.prog, c.path)
			if c.want == "" {
				if !errors.Is(err, exec.ErrNotFound) {
					t.Fatalf("Find(%q, %q) = %q, %v; want exec.ErrNotFound", c.prog, c.path, got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Find(%q, %q) = %q, %v; want %q", c.prog, c.path, got, err, c.want)
			}
		})
	}
}

func TestExecutable(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x")
	plain := filepath.Join(dir, "plain")
	os.WriteFile(x, nil, 0o700)
	os.WriteFile(plain, nil, 0o600)
	for p, want := range map[string]bool{x: true, plain: false, dir: false, filepath.Join(dir, "gone"): false} {
		if got := Executable(p); got != want {
			t.Errorf("Executable(%s) = %v, want %v", p, got, want)
		}
	}
}

func TestLookupTakesAPathAsItIsAndSearchesForAName(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Lookup("tool", "/nonexistent:"+dir); err != nil || got != tool {
		t.Errorf("Lookup(tool) on PATH = %q, %v; want %s", got, err, tool)
	}
	// A path is not searched for: PATH holds no such folder.
	if got, err := Lookup(tool, ""); err != nil || got != tool {
		t.Errorf("Lookup(%s) = %q, %v; want it as given", tool, got, err)
	}
	for _, bad := range []string{filepath.Join(dir, "missing"), plain, dir + "/"} {
		if got, err := Lookup(bad, dir); err == nil {
			t.Errorf("Lookup(%s) = %q; want an error (missing, not executable, a folder)", bad, got)
		}
	}
	if _, err := Lookup("missing", dir); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("Lookup(missing) on PATH: %v; want exec.ErrNotFound", err)
	}
}
