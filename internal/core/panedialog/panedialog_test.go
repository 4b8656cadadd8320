package panedialog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/team"
)

func newTeam(t *testing.T) team.Team {
	t.Helper()
	root := t.TempDir()
	tm, _, err := team.Create(root, "review", team.CreateOptions{Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(RunDir(tm, "coder"), 0o700); err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestSetReadClear(t *testing.T) {
	tm := newTeam(t)
	if _, ok := Read(tm, "coder"); ok {
		t.Fatal("a mark was read before any was set")
	}
	now := time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)
	if err := Set(tm, "coder", "Allow execution of: 'rm -rf build'?\nmore", now); err != nil {
		t.Fatal(err)
	}
	m, ok := Read(tm, "coder")
	if !ok || !m.Since.Equal(now) || m.About != "Allow execution of: 'rm -rf build'?" {
		t.Fatalf("read %+v %v", m, ok)
	}
	if st, err := os.Stat(Path(tm, "coder")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the mark is not a 0600 file: %v %v", st, err)
	}
	if err := Clear(tm, "coder"); err != nil {
		t.Fatal(err)
	}
	if _, ok := Read(tm, "coder"); ok {
		t.Error("the mark is still read after Clear")
	}
	if err := Clear(tm, "coder"); err != nil {
		t.Errorf("clearing no mark: %v", err)
	}
	if err := Clear(tm, "nobody"); err != nil {
		t.Errorf("clearing the mark of a member without a run folder: %v", err)
	}
}

func TestNothingButAMarkIsRead(t *testing.T) {
	tm := newTeam(t)
	for name, plant := range map[string]func(p string) error{
		"malformed": func(p string) error { return os.WriteFile(p, []byte("{not json"), 0o600) },
		"no time":   func(p string) error { return os.WriteFile(p, []byte(`{"about":"x"}`), 0o600) },
		"huge": func(p string) error {
			return os.WriteFile(p, []byte(`{"since":"2026-11-27T07:00:00Z","about":"`+strings.Repeat("x", 8<<10)+`"}`), 0o600)
		},
		"folder": func(p string) error { return os.Mkdir(p, 0o700) },
		"link": func(p string) error {
			target := filepath.Join(t.TempDir(), "real")
			if err := os.WriteFile(target, []byte(`{"since":"2026-11-27T07:00:00Z"}`), 0o600); err != nil {
				return err
			}
			return os.Symlink(target, p)
		},
	} {
		p := Path(tm, "coder")
		os.RemoveAll(p)
		if err := plant(p); err != nil {
			t.Fatal(err)
		}
		if m, ok := Read(tm, "coder"); ok {
			t.Errorf("%s: read as a mark: %+v", name, m)
		}
	}
}

func TestALinkedRunFolderIsNeitherReadNorWritten(t *testing.T) {
	tm := newTeam(t)
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, fileName), []byte(`{"since":"2026-11-27T07:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, RunDir(tm, "linked")); err != nil {
		t.Fatal(err)
	}
	if _, ok := Read(tm, "linked"); ok {
		t.Error("a mark was read through a linked run folder")
	}
	if err := Set(tm, "linked", "x", time.Now()); err == nil {
		t.Error("a mark was written through a linked run folder")
	}
	if err := Clear(tm, "linked"); err == nil {
		t.Error("Clear went through a linked run folder")
	}
	if _, err := os.Stat(filepath.Join(elsewhere, fileName)); err != nil {
		t.Errorf("the file behind the link was touched: %v", err)
	}
}
