package backend_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/kittytest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/iterm2/it2test"
	"github.com/paneteam/paneteam/team"
)

// it2State is what the machine's it2 does in a detection case.
type it2State int

const (
	it2Missing it2State = iota
	it2Works
	it2APIOff
)

// world is a machine as the backend choice sees it: captured variables,
// whether tmux is installed, and a fake it2 in a given state.
type world struct {
	vars   map[string]string
	tmux   bool
	it2    it2State
	flavor it2test.Flavor
}

// env builds the backend.Env of a world; warnings land in *warned.
func (w world) env(t *testing.T, warned *[]string) (backend.Env, *it2test.Fake) {
	fl := w.flavor
	if fl == "" {
		fl = it2test.Python
	}
	f := it2test.New(t, fl)
	if w.it2 == it2APIOff {
		f.Change(func(st *it2test.State) { st.APIOff = true })
	}
	return backend.Env{
		Getenv: func(k string) string { return w.vars[k] },
		LookPath: func(name string) (string, error) {
			switch {
			case name == "it2" && w.it2 != it2Missing:
				return f.Bin, nil
			case name == "tmux" && w.tmux:
				return "/usr/bin/tmux", nil
			}
			return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
		},
		Warn: func(format string, args ...any) { *warned = append(*warned, fmt.Sprintf(format, args...)) },
	}, f
}

const leadEnv = "w0t0p0:B9FAD42C-1D2E-4C5B-9F10-3A4B5C6D7E8F"

var (
	inITerm  = map[string]string{"TERM_PROGRAM": "iTerm.app", "ITERM_SESSION_ID": leadEnv}
	inTmux   = map[string]string{"TMUX": "/tmp/tmux-1/default,123,0", "TMUX_PANE": "%0", "TERM_PROGRAM": "iTerm.app", "ITERM_SESSION_ID": leadEnv}
	plain    = map[string]string{"TERM": "xterm-256color"}
	onlySess = map[string]string{"ITERM_SESSION_ID": leadEnv}
	onlyProg = map[string]string{"TERM_PROGRAM": "iTerm.app"}
)

func with(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestDecideMatrix(t *testing.T) {
	cases := []struct {
		name      string
		w         world
		requested string
		teamOn    string // the team's recorded backend
		want      string
		wantNotes []string // each must appear in the notes; nil: no notes
		wantErr   []string // the error must contain each
		probes    bool     // it2 session list is run
	}{
		{name: "inside tmux wins even in iTerm2", w: world{vars: inTmux, tmux: true, it2: it2Works}, want: team.BackendTmux},
		{name: "iTerm2 with working it2", w: world{vars: inITerm, tmux: true, it2: it2Works}, want: team.BackendITerm2, probes: true},
		{name: "ITERM_SESSION_ID alone", w: world{vars: onlySess, it2: it2Works}, want: team.BackendITerm2, probes: true},
		{name: "TERM_PROGRAM alone", w: world{vars: onlyProg, it2: it2Works}, want: team.BackendITerm2, probes: true},
		{name: "swift it2 works too", w: world{vars: inITerm, it2: it2Works, flavor: it2test.Swift}, want: team.BackendITerm2, probes: true},
		{name: "API off falls back to tmux, says why and how to fix",
			w: world{vars: inITerm, tmux: true, it2: it2APIOff}, want: team.BackendTmux, probes: true,
			wantNotes: []string{"Python API", "Settings > General > Magic", "private tmux server"}},
		{name: "swift API off falls back to tmux",
			w: world{vars: inITerm, tmux: true, it2: it2APIOff, flavor: it2test.Swift}, want: team.BackendTmux, probes: true,
			wantNotes: []string{"Settings > General > Magic", "private tmux server"}},
		{name: "API off and no tmux: in-process, announced",
			w: world{vars: inITerm, it2: it2APIOff}, want: team.BackendInProcess, probes: true,
			wantNotes: []string{"Settings > General > Magic", "in-process"}},
		{name: "no it2: tells how to install it",
			w: world{vars: inITerm, tmux: true, it2: it2Missing}, want: team.BackendTmux,
			wantNotes: []string{"pipx install it2", "private tmux server"}},
		{name: "prefer tmux in iTerm2", w: world{vars: with(inITerm, backend.EnvPreferTmux, "1"), tmux: true, it2: it2Works}, want: team.BackendTmux},
		{name: "prefer tmux but no tmux",
			w: world{vars: with(inITerm, backend.EnvPreferTmux, "1"), it2: it2Works}, want: team.BackendITerm2, probes: true,
			wantNotes: []string{"tmux is not installed"}},
		{name: "outside iTerm2 it2 is not consulted", w: world{vars: plain, tmux: true, it2: it2Works}, want: team.BackendTmux},
		{name: "nothing at all: in-process, announced", w: world{vars: plain}, want: team.BackendInProcess,
			wantNotes: []string{"install tmux"}},
		{name: "explicit iterm2 works", w: world{vars: inITerm, tmux: true, it2: it2Works}, requested: "iterm2", want: team.BackendITerm2, probes: true},
		{name: "explicit iterm2 by variable", w: world{vars: with(inITerm, backend.EnvBackend, "iterm2"), tmux: true, it2: it2Works}, want: team.BackendITerm2, probes: true},
		{name: "explicit iterm2 with API off fails instead of falling back",
			w: world{vars: inITerm, tmux: true, it2: it2APIOff}, requested: "iterm2", probes: true,
			wantErr: []string{"iterm2", "Settings > General > Magic"}},
		{name: "explicit iterm2 without it2 fails",
			w: world{vars: inITerm, tmux: true, it2: it2Missing}, requested: "iterm2",
			wantErr: []string{"pipx install it2"}},
		{name: "explicit tmux inside iTerm2", w: world{vars: inITerm, tmux: true, it2: it2Works}, requested: "tmux", want: team.BackendTmux},
		{name: "flag beats variable", w: world{vars: with(inITerm, backend.EnvBackend, "iterm2"), tmux: true, it2: it2APIOff}, requested: "tmux", want: team.BackendTmux},
		{name: "a team with an in-process teammate does not send the next one there", w: world{vars: inITerm, tmux: true, it2: it2Works}, teamOn: team.BackendInProcess,
			want: team.BackendITerm2, probes: true},
		{name: "nor on a private tmux server", w: world{vars: plain, tmux: true}, teamOn: team.BackendInProcess, want: team.BackendTmux},
		{name: "a default the user set is kept", w: world{vars: with(plain, backend.EnvBackend, "in-process"), tmux: true}, teamOn: team.BackendTmux,
			want: team.BackendInProcess},
		{name: "unknown backend", w: world{vars: plain, tmux: true}, requested: "screen", wantErr: []string{`unknown backend "screen"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var warned []string
			env, f := c.w.env(t, &warned)
			cfg := &team.Config{Name: "alpha"}
			if c.teamOn != "" {
				cfg.Paneteam = &team.TeamMeta{Backend: c.teamOn}
			}
			d, err := backend.Decide(env, cfg, c.requested)
			if c.wantErr != nil {
				if err == nil {
					t.Fatalf("decided %+v; want an error", d)
				}
				for _, s := range c.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Backend != c.want {
				t.Fatalf("chose %s (%s); want %s", d.Backend, d.Reason, c.want)
			}
			notes := strings.Join(d.Notes, "\n")
			if c.wantNotes == nil && notes != "" {
				t.Errorf("unexpected notes: %s", notes)
			}
			for _, s := range c.wantNotes {
				if !strings.Contains(notes, s) {
					t.Errorf("notes %q do not say %q", notes, s)
				}
			}
			probed := false
			for _, a := range f.Argvs() {
				probed = probed || a == "session list --json"
			}
			if probed != c.probes {
				t.Errorf("it2 session list run: %v; want %v (calls %q)", probed, c.probes, f.Argvs())
			}
			if len(warned) != 0 {
				t.Errorf("Decide printed warnings %q; only Choose announces", warned)
			}
		})
	}
}

// Choose announces every fallback through Env.Warn, where the CLI shows it
// on stderr.
func TestChooseAnnouncesFallback(t *testing.T) {
	var warned []string
	env, _ := world{vars: with(inITerm, backend.EnvPreferTmux, "1"), it2: it2Works}.env(t, &warned)
	b, err := backend.Choose(env, &team.Config{Name: "alpha"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != team.BackendITerm2 || len(warned) != 1 || !strings.Contains(warned[0], "tmux is not installed") {
		t.Fatalf("chose %s, warned %q; want iterm2 and one warning about tmux", b.Name(), warned)
	}

	warned = nil
	env, _ = world{vars: inITerm, it2: it2APIOff}.env(t, &warned)
	_, err = backend.Choose(env, &team.Config{Name: "alpha"}, "")
	if len(warned) != 1 || !strings.Contains(warned[0], "Settings > General > Magic") {
		t.Fatalf("fallback from iTerm2 warned %q (err %v); want the reason and the fix", warned, err)
	}
}

// In kitty outside tmux, the auto choice opens kitty's own panes when its
// remote control answers, and says why not and how to fix it when it does
// not (then a private tmux server); asked for by name, a kitty that does
// not answer is an error naming the fix.
func TestDecideKitty(t *testing.T) {
	kittyBin := testutil.RequireTool(t, "kitty")
	k := kittytest.Start(t, kittytest.Options{})
	dead := map[string]string{"KITTY_LISTEN_ON": "unix:" + filepath.Join(t.TempDir(), "gone"), "KITTY_WINDOW_ID": "1"}
	cases := []struct {
		name      string
		vars      map[string]string
		tmux      bool
		requested string
		want      string
		wantNotes []string
		wantErr   []string
	}{
		{name: "kitty that answers", vars: map[string]string{"KITTY_LISTEN_ON": k.Addr, "KITTY_WINDOW_ID": k.Window}, tmux: true, want: team.BackendKitty},
		{name: "inside tmux inside kitty: tmux", vars: map[string]string{"KITTY_LISTEN_ON": k.Addr, "KITTY_WINDOW_ID": k.Window, "TMUX": "/tmp/x,1,0", "TMUX_PANE": "%0"}, tmux: true, want: team.BackendTmux},
		{name: "kitty that does not answer: private tmux, announced with the fix", vars: dead, tmux: true, want: team.BackendTmux,
			wantNotes: []string{"kitty panes are unavailable", "allow_remote_control yes", "private tmux server"}},
		{name: "remote control off and no tmux: in-process, announced", vars: map[string]string{"KITTY_WINDOW_ID": "1"}, want: team.BackendInProcess,
			wantNotes: []string{"KITTY_LISTEN_ON is not set", "allow_remote_control yes", "in-process"}},
		{name: "explicit kitty that answers", vars: map[string]string{"KITTY_LISTEN_ON": k.Addr, "KITTY_WINDOW_ID": k.Window}, requested: "kitty", want: team.BackendKitty},
		{name: "explicit kitty that does not answer fails with the fix", vars: dead, tmux: true, requested: "kitty",
			wantErr: []string{"backend kitty was asked for", "allow_remote_control yes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := backend.Env{
				Getenv: func(k string) string { return c.vars[k] },
				LookPath: func(name string) (string, error) {
					switch {
					case name == "kitty":
						return kittyBin, nil
					case name == "tmux" && c.tmux:
						return "/usr/bin/tmux", nil
					}
					return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
				},
			}
			d, err := backend.Decide(env, &team.Config{Name: "alpha"}, c.requested)
			if c.wantErr != nil {
				if err == nil {
					t.Fatalf("decided %+v; want an error", d)
				}
				for _, s := range c.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Backend != c.want {
				t.Fatalf("chose %s (%s, notes %q); want %s", d.Backend, d.Reason, d.Notes, c.want)
			}
			notes := strings.Join(d.Notes, "\n")
			if c.wantNotes == nil && notes != "" {
				t.Errorf("unexpected notes: %s", notes)
			}
			for _, s := range c.wantNotes {
				if !strings.Contains(notes, s) {
					t.Errorf("notes %q do not say %q", notes, s)
				}
			}
		})
	}

	// Choose announces the failed probe through Env.Warn.
	var warned []string
	env := backend.Env{Getenv: func(k string) string { return dead[k] }, LookPath: func(name string) (string, error) {
		if name == "kitty" {
			return kittyBin, nil
		}
		return exec.LookPath(name)
	}, Warn: func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }}
	if _, err := backend.Choose(env, &team.Config{Name: "alpha"}, ""); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "allow_remote_control yes") {
		t.Fatalf("a kitty that does not answer was announced as %q; want its fix", warned)
	}
}
