package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run's folder lies in the team's folder, which teammates write. A link
// planted in place of one of its files is replaced, not written through;
// one planted in place of one of its folders is refused, naming it. The
// links Write makes to the person's logins still lead to them.
func TestWriteFollowsNoPlantedLink(t *testing.T) {
	home := filepath.Join(t.TempDir(), "agents", "coder")
	os.MkdirAll(home, 0o700)
	outDir := t.TempDir()
	outFile := filepath.Join(outDir, "bashrc")
	before := []byte("# my shell\n")
	os.WriteFile(outFile, before, 0o644)
	login := filepath.Join(t.TempDir(), "auth.json")
	os.WriteFile(login, []byte("secret"), 0o600)
	l := RunPlan{Home: home, Dirs: []string{filepath.Join(home, "codex")}, Files: []PlannedFile{
		{Path: filepath.Join(home, "codex", "config.toml"), Data: []byte("model = \"x\"\n")},
		{Path: filepath.Join(home, "codex", "auth.json"), Link: login},
	}}
	unchanged := func() {
		t.Helper()
		if b, _ := os.ReadFile(outFile); !bytes.Equal(b, before) {
			t.Errorf("the file outside changed: %q", b)
		}
		if ents, _ := os.ReadDir(outDir); len(ents) != 1 {
			t.Errorf("files were made outside: %d entries", len(ents))
		}
	}

	// A folder of the run replaced by a link.
	codex := filepath.Join(home, "codex")
	if err := os.Symlink(outDir, codex); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(); err == nil || !strings.Contains(err.Error(), codex) {
		t.Errorf("Write = %v, want an error naming %s", err, codex)
	}
	unchanged()

	// A file of the run replaced by a link.
	os.Remove(codex)
	os.Mkdir(codex, 0o700)
	if err := os.Symlink(outFile, l.Files[0].Path); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(); err != nil {
		t.Fatalf("Write over a planted file link: %v", err)
	}
	unchanged()
	if b, _ := os.ReadFile(l.Files[0].Path); string(b) != "model = \"x\"\n" {
		t.Errorf("the run's file holds %q", b)
	}
	if b, _ := os.ReadFile(l.Files[1].Path); string(b) != "secret" {
		t.Errorf("the link to the person's login reads %q", b)
	}
}
