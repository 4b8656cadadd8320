package iterm2check

import (
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

// env is a lead in iTerm2 with the fake's it2 and no tmux installed.
func env(f *it2test.Fake) backend.Env {
	vars := map[string]string{"TERM_PROGRAM": "iTerm.app", "ITERM_SESSION_ID": f.ITermSessionID}
	return backend.Env{Getenv: func(k string) string { return vars[k] }, LookPath: f.LookPath, Warn: func(string, ...any) {}}
}

func report(r Report) string {
	var b strings.Builder
	Write(&b, r)
	return b.String()
}

// In a working iTerm2 the check finds the lead's session and chooses
// iTerm2 splits.
func TestWorkingITerm2(t *testing.T) {
	f := it2test.New(t, it2test.Python)
	r := Run(env(f), "")
	if !r.InITerm2 || r.InsideTmux || !r.It2Works || r.It2 != f.Bin || r.Tmux != "" || r.LeadSession != f.LeadID {
		t.Fatalf("report in a working iTerm2: %+v", r)
	}
	out := report(r)
	for _, want := range []string{"inside tmux:       no\n", "lead session:      " + f.LeadID + "\n",
		"it2 session list:  works\n", "tmux:              (none)\n", "backend:           iterm2 ("} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// With iTerm2's Python API off, 'it2 session list' fails: the automatic
// choice falls back to in-process and says how to turn the API on, and
// asking for iterm2 gets no backend, with the same fix.
func TestITerm2APIOff(t *testing.T) {
	f := it2test.New(t, it2test.Python)
	f.Change(func(st *it2test.State) { st.APIOff = true })
	r := Run(env(f), "")
	if r.It2Works || r.It2Error == "" || r.Choice.Backend != "in-process" || !strings.Contains(strings.Join(r.Choice.Notes, " "), "Settings > General > Magic") {
		t.Fatalf("report with the API off: %+v; want in-process with the fix in a note", r)
	}
	if out := report(r); !strings.Contains(out, "it2 session list:  fails: ") || !strings.Contains(out, "note:              ") {
		t.Errorf("report with the API off:\n%s", out)
	}
	r = Run(env(f), "iterm2")
	if out := report(r); r.ChoiceError == "" || !strings.Contains(out, "backend:           none: ") || !strings.Contains(out, "Magic") {
		t.Fatalf("asking for iterm2 with the API off: %+v\n%s", r, out)
	}
}
