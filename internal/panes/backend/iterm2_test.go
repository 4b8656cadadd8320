package backend_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/iterm2/it2test"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// lead is the lead's paneteam invocation environment inside a fake
// iTerm2: each call of env is a separate invocation.
type lead struct {
	t      *testing.T
	f      *it2test.Fake
	tm     team.Team
	vars   map[string]string
	warned []string
}

func newLead(t *testing.T, fl it2test.Flavor) *lead {
	f := it2test.New(t, fl)
	tm := teamtest.New(t, "alpha", team.CreateOptions{Cwd: t.TempDir()})
	return &lead{t: t, f: f, tm: tm,
		vars: map[string]string{"TERM_PROGRAM": "iTerm.app", "ITERM_SESSION_ID": f.ITermSessionID}}
}

func (l *lead) env() backend.Env {
	return backend.Env{
		Getenv:   func(k string) string { return l.vars[k] },
		LookPath: l.f.LookPath, // no tmux here: iTerm2 or nothing
		Warn:     func(format string, args ...any) { l.warned = append(l.warned, fmt.Sprintf(format, args...)) },
	}
}

func (l *lead) config() *team.Config {
	l.t.Helper()
	return teamtest.Load(l.t, l.tm)
}

// spawn does what 'paneteam spawn-pane' does, in a fresh invocation: read
// the config, choose a backend, spawn, record the member.
func (l *lead) spawn(name string) (backend.Pane, error) {
	l.t.Helper()
	ctx := context.Background()
	cfg := l.config()
	b, err := backend.Choose(l.env(), cfg, "")
	if err != nil {
		return backend.Pane{}, err
	}
	m := team.Member{Name: name, Cwd: l.t.TempDir(), Color: cfg.NextColor()}
	pane, err := b.Spawn(ctx, backend.Spec{Team: l.tm, Config: cfg, Member: m,
		Argv: []string{"claude", "--agent-name", name}, Env: []string{"CLAUDECODE=1"}})
	if err != nil {
		return pane, err
	}
	_, err = l.tm.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		added, err := c.AddMember(m)
		if err != nil {
			return err
		}
		added.TmuxPaneID, added.BackendType = pane.ID, pane.Backend
		backend.Record(c, b)
		return nil
	})
	if err != nil {
		l.t.Fatal(err)
	}
	return pane, nil
}

func (l *lead) mustSpawn(name string) string {
	l.t.Helper()
	p, err := l.spawn(name)
	if err != nil {
		l.t.Fatalf("spawn %s: %v", name, err)
	}
	if p.Backend != team.BackendITerm2 || !iterm2.ValidID(p.ID) {
		l.t.Fatalf("spawn %s: pane %+v; want an iTerm2 session", name, p)
	}
	return p.ID
}

// splits lists the split calls made since the log had n calls.
func (l *lead) splits(from int) []string {
	var out []string
	for _, a := range l.f.Argvs()[from:] {
		if strings.HasPrefix(a, "session split") {
			out = append(out, a)
		}
	}
	return out
}

func TestITerm2SplitChainAcrossInvocations(t *testing.T) {
	for _, fl := range flavors() {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			l := newLead(t, fl)
			a := l.mustSpawn("alice")
			b := l.mustSpawn("bob")
			c := l.mustSpawn("carol")

			// First teammate beside the lead, each later one below the last.
			for _, w := range []struct {
				id, from string
				vertical bool
			}{{a, l.f.LeadID, true}, {b, a, false}, {c, b, false}} {
				s := l.f.Session(w.id)
				if s == nil || s.SplitFrom != w.from || s.Vertical != w.vertical {
					t.Fatalf("session %s = %+v; want split from %s, vertical %v", w.id, s, w.from, w.vertical)
				}
			}
			cfg := l.config()
			for name, id := range map[string]string{"alice": a, "bob": b, "carol": c} {
				m := cfg.Member(name)
				if m.TmuxPaneID != id || m.BackendType != team.BackendITerm2 {
					t.Errorf("config member %s: tmuxPaneId %q backendType %q; want %q iterm2", name, m.TmuxPaneID, m.BackendType, id)
				}
				s := l.f.Session(id)
				want, _ := iterm2.CommandLine(m.Cwd, []string{"CLAUDECODE=1"}, []string{"claude", "--agent-name", name},
					map[string]string{iterm2.AgentVar: name})
				if s.Name != name || len(s.Typed) != 1 || s.Typed[0] != want+"\r" {
					t.Errorf("session of %s: name %q typed %q; want the name and %q", name, s.Name, s.Typed, want+"\r")
				}
			}
			if cfg.Paneteam.Backend != team.BackendITerm2 || cfg.Paneteam.LeaderPane != l.f.LeadID {
				t.Errorf("team record %+v; want backend iterm2 and the lead's session", cfg.Paneteam)
			}
			if len(l.warned) != 0 {
				t.Errorf("warnings in a working iTerm2: %q", l.warned)
			}

			// An invocation from a script without ITERM_SESSION_ID still
			// continues the team's stack from the recorded lead.
			l.vars = map[string]string{"PANETEAM_BACKEND": "iterm2"}
			d := l.mustSpawn("dave")
			if s := l.f.Session(d); s.SplitFrom != c {
				t.Fatalf("dave split from %s; want carol's session %s", s.SplitFrom, c)
			}
		})
	}
}

func TestITerm2RecoversFromClosedSessions(t *testing.T) {
	for _, fl := range flavors() {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			l := newLead(t, fl)
			a := l.mustSpawn("alice")
			b := l.mustSpawn("bob")

			l.f.CloseSession(b) // the user closes bob's pane
			n := len(l.f.Calls())
			c := l.mustSpawn("carol")
			if s := l.f.Session(c); s.SplitFrom != a || s.Vertical {
				t.Fatalf("carol: %+v; want a split below alice's session %s", s, a)
			}
			want := []string{"session split -s " + b, "session split -s " + a}
			if got := l.splits(n); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("splits %q; want %q", got, want)
			}

			// Every teammate closed: back to a vertical split of the lead.
			l.f.CloseSession(a)
			l.f.CloseSession(c)
			n = len(l.f.Calls())
			d := l.mustSpawn("dave")
			if s := l.f.Session(d); s.SplitFrom != l.f.LeadID || !s.Vertical {
				t.Fatalf("dave: %+v; want a vertical split of the lead", s)
			}
			// bob is gone from the window but still in the config (he
			// never shut down): N+1 = 4 targets, each tried once.
			if got := l.splits(n); len(got) != 4 {
				t.Fatalf("splits %q; want 4 (carol, alice, bob, then the lead)", got)
			}

			// Even the lead's session closed: a bounded failure that says so.
			l.f.CloseSession(d)
			l.f.CloseSession(l.f.LeadID)
			n = len(l.f.Calls())
			_, err := l.spawn("erin")
			if err == nil || !strings.Contains(err.Error(), "every iTerm2 session to split from is closed") {
				t.Fatalf("spawn with every session closed: %v", err)
			}
			if got := l.splits(n); len(got) != 5 {
				t.Fatalf("%d splits with 4 teammates and the lead all closed; want exactly 5: %q", len(got), got)
			}
		})
	}
}

func TestITerm2SplitFailureIsNotRetried(t *testing.T) {
	l := newLead(t, it2test.Python)
	l.mustSpawn("alice")
	l.f.Change(func(st *it2test.State) { st.FailSplit = "Session is too small to split" })
	n := len(l.f.Calls())
	_, err := l.spawn("bob")
	if err == nil || !strings.Contains(err.Error(), "too small") {
		t.Fatalf("spawn into a full window: %v; want it2's reason", err)
	}
	if got := l.splits(n); len(got) != 1 {
		t.Fatalf("splits %q; a live target that cannot split must not start the retry chain", got)
	}
}

func TestITerm2APIOffSaysHowToFix(t *testing.T) {
	for _, fl := range flavors() {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			l := newLead(t, fl)
			l.mustSpawn("alice")
			cfg := l.config()
			b, err := backend.Choose(l.env(), cfg, "")
			if err != nil {
				t.Fatal(err)
			}
			l.f.Change(func(st *it2test.State) { st.APIOff = true }) // turned off meanwhile
			n := len(l.f.Calls())
			_, err = b.Spawn(context.Background(), backend.Spec{Team: l.tm, Config: cfg,
				Member: team.Member{Name: "bob", Cwd: t.TempDir()}, Argv: []string{"claude"}})
			if !errors.Is(err, iterm2.ErrAPIUnavailable) || !strings.Contains(err.Error(), "Settings > General > Magic") {
				t.Fatalf("spawn with the API off: %v; want ErrAPIUnavailable and the fix", err)
			}
			if got := l.f.Argvs()[n:]; len(got) != 1 {
				t.Fatalf("calls %q; API off must fail at once, not walk the stack", got)
			}
			// Explicitly asked for, iTerm2 now refuses instead of falling back.
			if _, err := backend.Choose(l.env(), cfg, "iterm2"); err == nil || !strings.Contains(err.Error(), "Magic") {
				t.Fatalf("--backend iterm2 with the API off: %v", err)
			}
		})
	}
}

func TestITerm2KillAndAlive(t *testing.T) {
	for _, fl := range flavors() {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			l := newLead(t, fl)
			id := l.mustSpawn("alice")
			cfg := l.config()
			m := cfg.Member("alice")
			b, err := backend.ForMember(l.env(), cfg, m)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := b.Alive(ctx, cfg, m); !ok || err != nil {
				t.Fatalf("Alive(alice) = %v, %v; want true", ok, err)
			}
			if err := b.Kill(ctx, cfg, m); err != nil {
				t.Fatal(err)
			}
			if l.f.Session(id) != nil {
				t.Fatal("alice's session survived Kill")
			}
			if ok, err := b.Alive(ctx, cfg, m); ok || err != nil {
				t.Fatalf("Alive after Kill = %v, %v; want false", ok, err)
			}
			if err := b.Kill(ctx, cfg, m); err != nil {
				t.Fatalf("Kill of a closed session: %v; want success", err)
			}
			if !strings.Contains(strings.Join(l.f.Argvs(), "\n"), "session close -f -s "+id) {
				t.Fatalf("no 'session close -f -s %s' in %q", id, l.f.Argvs())
			}

			// Never the lead's session, never an id that is not iTerm2's.
			n := len(l.f.Calls())
			leadAsMember := team.Member{Name: "team-lead", BackendType: team.BackendITerm2, TmuxPaneID: l.f.LeadID}
			if err := b.Kill(ctx, cfg, &leadAsMember); err == nil {
				t.Fatal("Kill closed the lead's session")
			}
			tmuxMember := team.Member{Name: "bob", BackendType: team.BackendITerm2, TmuxPaneID: "%3"}
			if err := b.Kill(ctx, cfg, &tmuxMember); err == nil {
				t.Fatal("Kill accepted a tmux pane id")
			}
			if got := l.f.Argvs()[n:]; len(got) != 0 {
				t.Fatalf("refused kills still called it2: %q", got)
			}
			if l.f.Session(l.f.LeadID) == nil {
				t.Fatal("the lead's session is gone")
			}
		})
	}
}

func TestITerm2RefusesUntypeableCommand(t *testing.T) {
	l := newLead(t, it2test.Python)
	b, err := backend.Choose(l.env(), l.config(), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Spawn(context.Background(), backend.Spec{Team: l.tm, Config: l.config(),
		Member: team.Member{Name: "alice", Cwd: t.TempDir()}, Argv: []string{"claude", "line1\nline2"}})
	if err == nil || !strings.Contains(err.Error(), "control character") {
		t.Fatalf("spawn with a newline in argv: %v", err)
	}
	if s := l.f.Read().Sessions; len(s) != 1 {
		t.Fatalf("a refused spawn left %d sessions; want only the lead's", len(s))
	}
}

func flavors() []it2test.Flavor { return []it2test.Flavor{it2test.Python, it2test.Swift} }
