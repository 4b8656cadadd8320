package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/diag/iterm2check"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

func iterm2Run(t *testing.T, vars map[string]string, args ...string) (string, string, int) {
	t.Helper()
	r := pt(t, vars).Run(t, args...)
	return r.Stdout, r.Stderr, r.Code
}

func TestITerm2ProfilePrintsTheExample(t *testing.T) {
	out, errs, code := iterm2Run(t, nil, "iterm2", "profile")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "examples", "iterm2", "paneteam.json"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Fatal("'paneteam iterm2 profile' differs from examples/iterm2/paneteam.json: regenerate the example")
	}
}

// The doctor's findings are iterm2check's (tested there); the command
// passes on the environment it started with, --backend and --json.
func TestITerm2Doctor(t *testing.T) {
	f := it2test.New(t, it2test.Python)
	testutil.Binary(t) // built with the go on this PATH, before PATH goes
	// PATH holds only the fake it2: no tmux on this machine.
	t.Setenv("PATH", f.Dir)
	vars := map[string]string{"PATH": f.Dir, "TERM_PROGRAM": "iTerm.app", "ITERM_SESSION_ID": f.ITermSessionID}

	out, errs, code := iterm2Run(t, vars, "iterm2", "doctor")
	if code != 0 || !strings.Contains(out, "backend:           iterm2") || !strings.Contains(out, f.LeadID) {
		t.Fatalf("doctor in a working iTerm2: exit %d\n%s%s", code, out, errs)
	}

	f.Change(func(st *it2test.State) { st.APIOff = true })
	out, errs, code = iterm2Run(t, vars, "iterm2", "doctor", "--json")
	var r iterm2check.Report
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("doctor --json: exit %d\n%s%s", code, out, errs)
	}
	if r.It2Works || r.Choice.Backend != "in-process" {
		t.Fatalf("doctor --json with the API off: %+v; want in-process", r)
	}
	out, _, _ = iterm2Run(t, vars, "iterm2", "doctor", "--backend", "iterm2")
	if !strings.Contains(out, "backend:           none") {
		t.Fatalf("doctor --backend iterm2 with the API off:\n%s", out)
	}
}
