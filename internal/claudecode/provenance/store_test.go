package provenance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStore(t *testing.T) {
	state := t.TempDir()
	s, err := DefaultStore(func(k string) string {
		if k == "PANETEAM_STATE_DIR" {
			return state
		}
		return "/nonexistent-home"
	})
	if err != nil {
		t.Fatal(err)
	}
	inbox := filepath.Join(t.TempDir(), "teams", "review", "inboxes", "alice.json")
	if k, err := s.Load(inbox); k != nil || err != nil {
		t.Fatalf("Load before Create: %v %v", k, err)
	}
	now := time.Now()
	k1, err := s.Create(inbox, now)
	if err != nil {
		t.Fatal(err)
	}
	if k1.Stamp != now.UnixMilli() {
		t.Errorf("stamp %d, want %d", k1.Stamp, now.UnixMilli())
	}
	st, err := os.Stat(s.Dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("key folder: %v %v", st.Mode(), err)
	}
	files, _ := os.ReadDir(s.Dir)
	if len(files) != 1 || !strings.HasPrefix(files[0].Name(), "review.alice.") {
		t.Fatalf("key files: %v", files)
	}
	fi, _ := files[0].Info()
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", fi.Mode().Perm())
	}
	got, err := s.Load(inbox)
	if err != nil || got.Flag() != k1.Flag() {
		t.Fatalf("Load: %v, flag %v want %v", err, got, k1.Flag())
	}
	// A re-launch replaces the key.
	k2, err := s.Create(inbox, now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(inbox); got.Flag() != k2.Flag() || k2.Flag() == k1.Flag() {
		t.Error("re-launch did not replace the key")
	}
	if files, _ := os.ReadDir(s.Dir); len(files) != 1 {
		t.Errorf("%d key files after a re-launch", len(files))
	}
	// Another root's team of the same name has its own key.
	other := filepath.Join(t.TempDir(), "teams", "review", "inboxes", "alice.json")
	if k, _ := s.Load(other); k != nil {
		t.Error("another root's teammate shares the key")
	}
	// A key others can read is refused.
	os.Chmod(filepath.Join(s.Dir, files[0].Name()), 0o644)
	if _, err := s.Load(inbox); err == nil || !strings.Contains(err.Error(), "read by others") {
		t.Errorf("loose key file: %v", err)
	}
	if err := s.Forget(inbox); err != nil {
		t.Fatal(err)
	}
	if k, err := s.Load(inbox); k != nil || err != nil {
		t.Errorf("after Forget: %v %v", k, err)
	}
	if err := s.Forget(inbox); err != nil {
		t.Errorf("Forget twice: %v", err)
	}
}

func TestDefaultStoreOutsideClaude(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	s, _ := DefaultStore(get)
	if s.Dir != "/home/u/.local/state/paneteam/keys" {
		t.Errorf("default %s", s.Dir)
	}
	env["XDG_STATE_HOME"] = "relative"
	if s, _ := DefaultStore(get); s.Dir != "/home/u/.local/state/paneteam/keys" {
		t.Errorf("relative XDG_STATE_HOME used: %s", s.Dir)
	}
	env["XDG_STATE_HOME"] = "/st"
	if s, _ := DefaultStore(get); s.Dir != "/st/paneteam/keys" {
		t.Errorf("XDG: %s", s.Dir)
	}
}
