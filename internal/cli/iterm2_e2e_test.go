package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/iterm2/it2test"
	"github.com/paneteam/paneteam/team"
)

// The lead in iTerm2 runs spawn-pane and kill-pane as separate commands;
// the stack continues from config.json and survives a pane the user
// closed.
func TestITerm2SpawnPaneEndToEnd(t *testing.T) {
	for _, fl := range []it2test.Flavor{it2test.Python, it2test.Swift} {
		t.Run(string(fl), func(t *testing.T) {
			f := it2test.New(t, fl)
			// backends find it2 on the process PATH: put the fake first.
			t.Setenv("PATH", f.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			root, vars := ptRootVars(t)
			vars["PATH"] = os.Getenv("PATH")
			vars["TERM_PROGRAM"] = "iTerm.app"
			vars["ITERM_SESSION_ID"] = f.ITermSessionID
			run := func(args ...string) string {
				t.Helper()
				out, errs, code := iterm2Run(t, vars, args...)
				if code != 0 {
					t.Fatalf("paneteam %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
				}
				if strings.Contains(errs, "iTerm2") {
					t.Fatalf("paneteam %s warned: %s", strings.Join(args, " "), errs)
				}
				return out
			}
			run("team-create", "alpha")
			pane := func(name string) string {
				_, cfg, err := team.Open(root, "alpha")
				if err != nil {
					t.Fatal(err)
				}
				m := cfg.Member(name)
				if m == nil || m.BackendType != team.BackendITerm2 {
					t.Fatalf("member %s: %+v; want an iterm2 member", name, m)
				}
				return m.TmuxPaneID
			}
			run("spawn-pane", "--team", "alpha", "--name", "alice", "--", "sleep", "1000")
			run("spawn-pane", "--team", "alpha", "--name", "bob", "--", "sleep", "1000")
			a, b := pane("alice"), pane("bob")
			if s := f.Session(a); s == nil || s.SplitFrom != f.LeadID || !s.Vertical || s.Name != "alice" {
				t.Fatalf("alice's session %+v: want a vertical split of the lead named alice", s)
			}
			if s := f.Session(b); s == nil || s.SplitFrom != a {
				t.Fatalf("bob's session %+v: want a split of alice's", s)
			}
			if typed := f.Session(b).Typed; len(typed) != 1 || !strings.Contains(typed[0], "exec env") || !strings.HasSuffix(typed[0], "sleep 1000\r") {
				t.Fatalf("typed into bob's pane: %q", typed)
			}

			f.CloseSession(b) // the user closes bob's pane
			run("spawn-pane", "--team", "alpha", "--name", "carol", "--", "sleep", "1000")
			c := pane("carol")
			if s := f.Session(c); s == nil || s.SplitFrom != a {
				t.Fatalf("carol's session %+v: want a split of alice's (bob's is closed)", s)
			}

			run("kill-pane", "--team", "alpha", "--name", "carol")
			if f.Session(c) != nil {
				t.Fatal("kill-pane left carol's session open")
			}
			if f.Session(f.LeadID) == nil || f.Session(a) == nil {
				t.Fatal("kill-pane closed a session that was not carol's")
			}
		})
	}
}
