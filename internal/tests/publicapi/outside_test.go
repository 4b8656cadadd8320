package publicapi

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/mailbox"
)

// outsideSeed is the Ed25519 seed the outside program signs with.
const outsideSeed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

// buildOutside builds testdata/outside, a module of its own
// (example.com/outside), against this work tree: a copy of it in a
// temporary folder, paneteam replaced by the module's root, its go.sum
// started from paneteam's so the go command finds every hash it needs in
// the module cache, and -mod=mod to let it write the requirements
// paneteam's own imply. It returns the program's path.
func buildOutside(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "outside")
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "main.go"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "go.mod" {
			b = []byte(strings.Replace(string(b), "=> ../../../../..", "=> "+moduleDir(t), 1))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := os.ReadFile(filepath.Join(moduleDir(t), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "outside")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a program outside the module does not build against the root packages: %v\n%s", err, out)
	}
	return bin
}

// TestOutsideModule: a program in a module of its own creates a team,
// signs and sends an entry as the lead with a Signer it wrote itself, and
// reads the inbox back, with paneteam's root packages alone; the entry it
// wrote is one a keyed Claude Code teammate believes (its lead_sig
// verifies under the --lead-verify-key of the program's key).
func TestOutsideModule(t *testing.T) {
	bin := buildOutside(t)
	root := t.TempDir()
	out, err := exec.Command(bin, root, outsideSeed).CombinedOutput()
	if err != nil {
		t.Fatalf("outside: %v\n%s", err, out)
	}
	want := regexp.MustCompile(`^team outside-team: 2 members, outsideTool \{"version":1\}
team-lead -> worker: "hello from outside" \(summary "greeting", signed true, verifies true\)
$`)
	if !want.Match(out) {
		t.Errorf("the program printed\n%s\nwant\n%s", out, want)
	}

	inbox := filepath.Join(root, "teams", "outside-team", "inboxes", "worker.json")
	b, err := os.ReadFile(inbox)
	if err != nil {
		t.Fatalf("no inbox where Claude Code reads it: %v", err)
	}
	var msgs []mailbox.Message
	if err := json.Unmarshal(b, &msgs); err != nil || len(msgs) != 1 {
		t.Fatalf("inbox holds %d entries (%v):\n%s", len(msgs), err, b)
	}
	m := msgs[0]
	if m.From != "team-lead" || m.Text != "hello from outside" || m.LeadSig == "" {
		t.Fatalf("entry from %q, text %q, lead_sig %q:\n%s", m.From, m.Text, m.LeadSig, b)
	}
	seed, _ := hex.DecodeString(outsideSeed)
	key, err := provenance.KeyFromSeed(seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := provenance.Verify(key.Flag(), mailbox.EntryOf(m), m.LeadSig); err != nil {
		t.Errorf("the outside Signer's lead_sig: %v\n%s", err, b)
	}
	cfg, err := os.ReadFile(filepath.Join(root, "teams", "outside-team", "config.json"))
	if err != nil || !strings.Contains(string(cfg), `"outsideTool": {`) {
		t.Errorf("config.json lost the program's own key (%v):\n%s", err, cfg)
	}
}
