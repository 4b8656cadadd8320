package router

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// pane is a teammate's pane under a Claude-led team with coder (%5)
// and bob (%6) written in, and the router 'paneteam claude' installed,
// offering codex.
type pane struct {
	root, state, claude, link string
	tm                        team.Team
}

func newPane(t *testing.T, c Config) pane {
	t.Helper()
	p := pane{root: testutil.Root(t), state: t.TempDir()}
	_, lead := testutil.LiveClaudeLead(t)
	testutil.ClaudeTeam(t, p.root, "session-1", lead, testutil.ClaudePaneTeammate("coder", "%5"), testutil.ClaudePaneTeammate("bob", "%6"))
	p.tm = team.Team{Root: p.root, Name: "session-1"}
	p.claude = filepath.Join(t.TempDir(), "claude")
	testutil.WriteExecutable(t, p.claude, []byte("#!/bin/sh\n"))
	c.Claude, c.Exe = p.claude, p.claude
	link, err := Install(p.state, c)
	if err != nil {
		t.Fatal(err)
	}
	p.link = link
	return p
}

// route runs the router as Claude ran it in pane %9, with PATH path.
func (p pane) route(t *testing.T, path string, args ...string) (Start, []string, error) {
	t.Helper()
	var said []string
	vars := map[string]string{"CLAUDE_CONFIG_DIR": p.root, "HOME": t.TempDir(), "PATH": path, "TMUX_PANE": "%9"}
	s, err := Route(context.Background(), Pane{Link: p.link, Args: args, Vars: vars, NewID: func() string { return "session-of-bob" },
		Warn: func(format string, a ...any) { said = append(said, format) }})
	if _, ok := vars["PANETEAM_STATE_DIR"]; ok {
		t.Errorf("Route changed the pane's own environment: %v", vars)
	}
	return s, said, err
}

func flags(name string, more ...string) []string {
	return append([]string{"--agent-id", name + "@session-1", "--agent-name", name, "--team-name", "session-1",
		"--agent-color", "blue", "--parent-session-id", "97469566-66ea-4fe2-957f-43a349fc6648"}, more...)
}

// TestRouteRunsAnyOtherTypeAsClaude: a type not offered runs the
// router's Claude with Claude's flags and a session id, in the state
// folder of the router's link, its launch recorded with the member's pane.
func TestRouteRunsAnyOtherTypeAsClaude(t *testing.T) {
	p := newPane(t, Config{Offered: []string{"codex"}})
	args := flags("bob", "--agent-type", "Explore", "--model", "claude-opus-5-5")
	s, _, err := p.route(t, "/usr/bin:/bin", args...)
	if err != nil || s.Claude == nil || s.Agent != nil {
		t.Fatalf("Route = %+v, %v; want a Claude start", s, err)
	}
	want := append(append([]string{p.claude}, args...), "--session-id", "session-of-bob")
	if !slices.Equal(s.Claude.Argv, want) || s.Claude.Team == nil || s.Claude.Team.Name != "session-1" {
		t.Errorf("Claude runs %q (team %v), want %q", s.Claude.Argv, s.Claude.Team, want)
	}
	if s.Vars["PANETEAM_STATE_DIR"] != p.state {
		t.Errorf("the teammate's state folder is %q, want the link's %s", s.Vars["PANETEAM_STATE_DIR"], p.state)
	}
	rec, err := launches.Open(p.state).Read(p.root, "session-1", "bob")
	if err != nil || rec == nil || rec.CLI != "claude" || rec.Via != launches.ViaRouter || rec.SessionID != "session-of-bob" ||
		rec.Pane != "%6" || rec.Backend != "tmux" || rec.Program != p.claude {
		t.Errorf("bob's launch record: %+v, %v; want Claude's, session-of-bob, in pane %%6", rec, err)
	}
}

// TestRouteMarksTheMemberAnAgentCLIRuns: an offered type runs its CLI as
// the member Claude's lead wrote in, marked as one paneteam routes, with
// the lead's settings carried over and the launch recorded.
func TestRouteMarksTheMemberAnAgentCLIRuns(t *testing.T) {
	p := newPane(t, Config{Offered: []string{"codex"}, Budget: 2})
	bin := t.TempDir()
	testutil.WriteExecutable(t, filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"))
	s, _, err := p.route(t, bin+":/usr/bin:/bin", flags("coder", "--agent-type", "codex", "--permission-mode", "acceptEdits", "--effort", "high")...)
	if err != nil || s.Agent == nil || s.Claude != nil {
		t.Fatalf("Route = %+v, %v; want an agent CLI start", s, err)
	}
	a := s.Agent
	if a.Profile != "codex" || a.Name != "coder" || a.Team.Name != "session-1" || a.Plan.PermissionMode != "acceptEdits" || a.Budget != 2 {
		t.Errorf("agent start %+v", a)
	}
	_, cfg, err := team.Open(p.root, "session-1")
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Member("coder"); m == nil || m.Paneteam == nil || m.Paneteam.CLI != "codex" || !m.Paneteam.Routed {
		t.Errorf("coder's member row %+v: want it marked as paneteam's codex", m)
	}
	rec, err := launches.Open(p.state).Read(p.root, "session-1", "coder")
	if err != nil || rec == nil || rec.CLI != "codex" || rec.Program != filepath.Join(bin, "codex") || rec.Pane != "%5" {
		t.Errorf("coder's launch record: %+v, %v", rec, err)
	}
}

// TestRouteRefusesAndTellsTheLead: an offered type the CLI cannot run as
// (a tool limit) does not start: the lead reads why in the teammate's
// name, nothing is recorded, and the member row stays Claude's.
func TestRouteRefusesAndTellsTheLead(t *testing.T) {
	p := newPane(t, Config{Offered: []string{"codex"}})
	bin := t.TempDir()
	testutil.WriteExecutable(t, filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"))
	_, _, err := p.route(t, bin, flags("coder", "--agent-type", "codex", "--tools", "Read,Grep")...)
	var ns *NotStartedError
	if !errors.As(err, &ns) || !strings.Contains(ns.Text, "coder did not start as OpenAI Codex CLI") || !strings.Contains(ns.Text, "Read, Grep") {
		t.Fatalf("Route: %v; want a *NotStartedError naming the tools", err)
	}
	msgs, err := mailbox.New(p.tm.InboxPath(team.LeadName), lockfile.Options{}).ReadAll()
	if err != nil || len(msgs) != 1 || msgs[0].From != "coder" || msgs[0].Text != ns.Text || msgs[0].Summary != "could not start" {
		t.Errorf("the lead's inbox: %+v, %v; want coder's refusal", msgs, err)
	}
	if rec, _ := launches.Open(p.state).Read(p.root, "session-1", "coder"); rec != nil {
		t.Errorf("a refused teammate's launch was recorded: %+v", rec)
	}
	_, cfg, _ := team.Open(p.root, "session-1")
	if m := cfg.Member("coder"); m == nil || m.Paneteam != nil {
		t.Errorf("a refused teammate's member row was marked: %+v", m)
	}
}

// TestPrepareKeepsThePersonsTeammateProgram: a person's own
// CLAUDE_CODE_TEAMMATE_COMMAND is what the router runs for every type
// it does not route, by its absolute path; another lead's router is not
// routed twice; one that is no program is said at once.
func TestPrepareKeepsThePersonsTeammateProgram(t *testing.T) {
	bin := t.TempDir()
	own := filepath.Join(bin, "my-teammate")
	testutil.WriteExecutable(t, own, []byte("#!/bin/sh\n"))
	state := t.TempDir()
	inner, err := Install(t.TempDir(), Config{Claude: "/opt/claude", Exe: own})
	if err != nil {
		t.Fatal(err)
	}
	prepare := func(cmd string, want []string) (Config, error) {
		vars := map[string]string{"PATH": bin, "HOME": t.TempDir(), EnvTeammateCommand: cmd}
		r, err := Prepare(Lead{Getenv: func(k string) string { return vars[k] }, State: state, Exe: own, Claude: "/usr/bin/claude", Want: want})
		if err != nil {
			return Config{}, err
		}
		if r.Offered == nil {
			t.Errorf("Prepare offered nil, want an empty list")
		}
		return Load(r.Link)
	}
	for cmd, want := range map[string]string{"": "/usr/bin/claude", "my-teammate": own, own: own, inner: "/opt/claude"} {
		if rc, err := prepare(cmd, []string{"none"}); err != nil || rc.Claude != want {
			t.Errorf("%s=%q: the router runs %q (%v), want %s", EnvTeammateCommand, cmd, rc.Claude, err, want)
		}
	}
	if _, err := prepare(filepath.Join(bin, "missing"), nil); err == nil || !strings.Contains(err.Error(), "full path") {
		t.Errorf("a teammate program that is not there: %v", err)
	}
	var ue *UsageError
	if _, err := prepare("", []string{"no-such-cli"}); !errors.As(err, &ue) {
		t.Errorf("an unknown CLI to offer: %v; want a *UsageError", err)
	}
}
