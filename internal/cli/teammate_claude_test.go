package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/agents/router"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// routerSetup is a team Claude's lead leads, with coder and bob written
// in as Claude writes its pane teammates before it starts them, and the
// router 'paneteam claude' would install: codex offered, a stand-in for
// Claude that records its arguments.
type routerSetup struct {
	root, state, link, argsFile string
	tm                          team.Team
}

func newRouterSetup(t *testing.T) routerSetup {
	t.Helper()
	root, _, tm := claudeLedTeam(t, nil, testutil.ClaudePaneTeammate("coder", "%5"), testutil.ClaudePaneTeammate("bob", "%6"))
	s := routerSetup{root: root, state: t.TempDir(), tm: tm}
	dir := t.TempDir()
	s.argsFile = filepath.Join(dir, "args")
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+s.argsFile+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link, err := router.Install(s.state, router.Config{Claude: claude, Offered: []string{"codex"}, Exe: testutil.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	s.link = link
	return s
}

// run starts the router as Claude's lead does, with Claude's flags.
func (s routerSetup) run(t *testing.T, path string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(s.link, args...)
	cmd.Env = []string{"CLAUDE_CONFIG_DIR=" + s.root, "PANETEAM_STATE_DIR=" + s.state, "HOME=" + t.TempDir(), "PATH=" + path, "TMUX_PANE=%6"}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func teammateFlags(name, team string, more ...string) []string {
	return append([]string{"--agent-id", name + "@" + team, "--agent-name", name, "--team-name", team,
		"--agent-color", "blue", "--parent-session-id", "97469566-66ea-4fe2-957f-43a349fc6648"}, more...)
}

// TestRouterRunsClaudeAsBefore: a teammate of a type paneteam does not
// run is the same Claude with every flag as Claude's lead gave it, plus a
// session id, and its launch is recorded with that id.
func TestRouterRunsClaudeAsBefore(t *testing.T) {
	s := newRouterSetup(t)
	flags := teammateFlags("bob", s.tm.Name, "--agent-type", "Explore", "--dangerously-skip-permissions", "--model", "claude-opus-5-5")
	if out, code := s.run(t, os.Getenv("PATH"), flags...); code != 0 {
		t.Fatalf("router: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(s.argsFile)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) != len(flags)+2 || strings.Join(got[:len(flags)], " ") != strings.Join(flags, " ") || got[len(flags)] != "--session-id" ||
		!regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(got[len(flags)+1]) {
		t.Fatalf("Claude ran with %q, want %q then --session-id <uuid>", got, flags)
	}
	rec, err := launches.Open(s.state).Read(s.root, s.tm.Name, "bob")
	if err != nil || rec == nil || rec.CLI != "claude" || rec.Via != launches.ViaRouter || rec.SessionID != got[len(flags)+1] || rec.Pane != "%6" ||
		rec.ParentSessionID != "97469566-66ea-4fe2-957f-43a349fc6648" {
		js, _ := json.Marshal(rec)
		t.Errorf("bob's launch record: %s, %v", js, err)
	}
}

// TestRouterRefusesWhatTheCLICannotHonour: a Codex teammate the lead
// asked for with a deny rule Codex cannot enforce, or a flag paneteam
// does not know, or with Codex not installed, does not start; the lead
// is told why in the teammate's name, and the pane says so.
func TestRouterRefusesWhatTheCLICannotHonour(t *testing.T) {
	s := newRouterSetup(t)
	withCodex := fakeProgramDir(t, "codex")
	cases := []struct {
		path string
		args []string
		want string
	}{
		{withCodex, []string{"--disallowed-tools", "Bash(rm:*)", "Edit"}, `deny rule "Bash(rm:*)"`},
		{withCodex, []string{"--brand-new-flag", "x"}, "--brand-new-flag"},
		{withCodex, []string{"--tools", "Read,Grep"}, "Read, Grep"},
		{"/nonexistent", nil, "not installed"},
	}
	for i, c := range cases {
		out, code := s.run(t, c.path, teammateFlags("coder", s.tm.Name, append([]string{"--agent-type", "codex"}, c.args...)...)...)
		if code == 0 || !strings.Contains(out, c.want) || !strings.Contains(out, "coder did not start") {
			t.Errorf("%v: exit %d, pane shows %q; want a refusal naming %s", c.args, code, out, c.want)
		}
		msgs, err := mailbox.New(s.tm.InboxPath(team.LeadName), lockfile.Options{}).ReadAll()
		if err != nil || len(msgs) != i+1 || msgs[i].From != "coder" || !strings.Contains(msgs[i].Text, c.want) {
			t.Errorf("%v: the lead's inbox %+v, %v; want coder's message naming %s", c.args, msgs, err, c.want)
		}
	}
	if rec, _ := launches.Open(s.state).Read(s.root, s.tm.Name, "coder"); rec != nil {
		t.Errorf("a refused teammate's launch was recorded: %+v", rec)
	}
}

// fakeProgramDir is a folder holding an executable named name.
func fakeProgramDir(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + ":/usr/bin:/bin"
}
