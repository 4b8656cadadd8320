package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// oneLead is a person's shell leading several teams: one lead process,
// the real paneteam binary, a team root, a state folder and a tmux socket
// folder of the test's own; inside tmux, the lead's pane is on a server of
// the test's own too.
type oneLead struct {
	t    *testing.T
	bin  string
	root string
	lead *exec.Cmd
	vars []string
}

func newOneLead(t *testing.T, inside bool) *oneLead {
	testutil.RequireTool(t, "tmux")
	l := &oneLead{t: t, bin: testutil.Binary(t), root: testutil.Root(t), lead: leadProcess(t)}
	l.vars = []string{"PANETEAM_ROOT=" + l.root, "PANETEAM_STATE_DIR=" + t.TempDir(),
		"TMUX_TMPDIR=" + testutil.ShortTempDir(t), "PANETEAM_TMUX_CONFIG=/dev/null"}
	if inside {
		srv := testutil.TmuxServer(t)
		l.vars = append(l.vars, testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv))...)
	}
	return l
}

func (l *oneLead) run(args ...string) (string, string, int) {
	l.t.Helper()
	cmd := exec.Command(l.bin, args...)
	cmd.Env = testutil.Env(l.vars...) // never the developer's $TMUX
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errb.String(), exit.ExitCode()
	}
	if err != nil {
		l.t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func (l *oneLead) must(args ...string) string {
	l.t.Helper()
	out, errs, code := l.run(args...)
	if code != 0 {
		l.t.Fatalf("paneteam %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return strings.TrimSpace(out)
}

// team creates a team led by the lead process and spawns its teammates,
// each showing who it is in its pane.
func (l *oneLead) team(name string, mates ...string) {
	l.t.Helper()
	if got := l.must("team-create", name, "--leader-pid", strconv.Itoa(l.lead.Process.Pid)); got != name {
		l.t.Fatalf("team-create %s printed %q", name, got)
	}
	for _, m := range mates {
		l.must("spawn-pane", "--team", name, "--name", m, "--",
			"sh", "-c", `echo "I am $PANETEAM_AGENT@$PANETEAM_TEAM"; exec sleep 600`)
	}
	l.stopServerAtEnd(name)
}

// stopServerAtEnd kills the team's private server when the test ends,
// whatever the test leaves.
func (l *oneLead) stopServerAtEnd(name string) {
	cfg := l.config(name)
	if cfg.Paneteam != nil && cfg.Paneteam.TmuxPrivate {
		sock := cfg.Paneteam.TmuxSocket
		l.t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	}
}

func (l *oneLead) config(name string) *team.Config {
	l.t.Helper()
	_, cfg, err := team.Open(l.root, name)
	if err != nil {
		l.t.Fatal(err)
	}
	return cfg
}

// livePane is the member's pane as tmux shows it: its agent tag, and
// whether its command runs; "" when the pane or its server is gone.
func livePane(sock, pane string) string {
	out, err := tmux.Server{Socket: sock}.Run(context.Background(), "display-message", "-p", "-t", pane, "#{@paneteam-agent} #{pane_dead}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// alive asserts that every teammate of the team runs in a pane of its
// own, carrying its agent id, on the server the team records, and that
// status says so.
func (l *oneLead) alive(name string, mates ...string) {
	l.t.Helper()
	cfg := l.config(name)
	for _, m := range mates {
		row := cfg.Member(m)
		if row == nil || row.Paneteam == nil {
			l.t.Fatalf("team %s has no member %s with a pane: %+v", name, m, cfg.Members)
		}
		if got, want := livePane(row.Paneteam.TmuxSocket, row.TmuxPaneID), team.AgentID(m, name)+" 0"; got != want {
			l.t.Errorf("%s's pane %s on %s: %q, want %q (alive, its own)", team.AgentID(m, name), row.TmuxPaneID, row.Paneteam.TmuxSocket, got, want)
		}
	}
	var st []struct {
		Members []struct {
			Name string `json:"name"`
			Pane string `json:"pane"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(l.must("status", "--team", name, "--json")), &st); err != nil || len(st) != 1 {
		l.t.Fatalf("status --team %s --json: %v (%d teams)", name, err, len(st))
	}
	var shown []string
	for _, m := range st[0].Members {
		if m.Name != team.LeadName {
			shown = append(shown, m.Name+":"+m.Pane)
		}
	}
	var want []string
	for _, m := range mates {
		want = append(want, m+":alive")
	}
	if strings.Join(shown, " ") != strings.Join(want, " ") {
		l.t.Errorf("status --team %s shows %v, want %v", name, shown, want)
	}
}

// gone asserts that none of the teammates' panes is left, where they were.
func gone(t *testing.T, panes map[string][2]string) {
	t.Helper()
	for who, p := range panes {
		if got := livePane(p[0], p[1]); got != "" {
			t.Errorf("%s's pane %s on %s is still there (%q)", who, p[1], p[0], got)
		}
	}
}

func (l *oneLead) panes(name string) map[string][2]string {
	out := map[string][2]string{}
	for _, m := range l.config(name).Members {
		if m.Paneteam != nil && m.TmuxPaneID != "" {
			out[m.AgentID] = [2]string{m.Paneteam.TmuxSocket, m.TmuxPaneID}
		}
	}
	return out
}

// TestTeamsOfOneLead: two and three teams led from one shell, outside
// tmux and inside, each spawn their teammates (the second team's first
// spawn used to fail outside tmux: "no pane of this team in the window to
// split"); each team's panes stay its own in status, attach, cleanup and
// the orphan reaper.
func TestTeamsOfOneLead(t *testing.T) {
	for _, tc := range []struct {
		inside bool
		teams  []string
	}{
		{false, []string{"review", "build"}},
		{false, []string{"review", "build", "docs"}},
		{true, []string{"review", "build"}},
		{true, []string{"review", "build", "docs"}},
	} {
		where := "outside"
		if tc.inside {
			where = "inside"
		}
		t.Run(fmt.Sprintf("%s-tmux-%d-teams", where, len(tc.teams)), func(t *testing.T) {
			l := newOneLead(t, tc.inside)
			mates := []string{"alice", "bob"}
			for _, n := range tc.teams {
				l.team(n, mates...)
			}
			for _, n := range tc.teams {
				l.alive(n, mates...)
			}
			if !tc.inside {
				l.ownServers(tc.teams)
				l.attachShows(tc.teams[1], tc.teams)
			}

			// cleanup of the first team closes its panes, no one else's.
			first := l.panes(tc.teams[0])
			l.must("cleanup", "--team", tc.teams[0], "--force")
			gone(t, first)
			for _, n := range tc.teams[1:] {
				l.alive(n, mates...)
			}

			// The reaper takes a team whose lead is gone (its pid now names
			// another process), not its neighbours of the same shell.
			if len(tc.teams) < 3 {
				return
			}
			second := l.panes(tc.teams[1])
			if _, err := (team.Team{Root: l.root, Name: tc.teams[1]}).Update(context.Background(), lockOptsDefault(), func(c *team.Config) error {
				c.Paneteam.LeaderStart = "1"
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			l.must("cleanup", "--orphans")
			gone(t, second)
			if _, _, err := team.Open(l.root, tc.teams[1]); err == nil {
				t.Errorf("team %s, whose lead is gone, was not reaped", tc.teams[1])
			}
			l.alive(tc.teams[2], mates...)
		})
	}
}

// ownServers asserts that outside tmux each team has a private server of
// its own, holding its panes and no other team's.
func (l *oneLead) ownServers(names []string) {
	l.t.Helper()
	seen := map[string]string{}
	for _, n := range names {
		cfg := l.config(n)
		if cfg.Paneteam == nil || !cfg.Paneteam.TmuxPrivate {
			l.t.Fatalf("team %s has no private server: %+v", n, cfg.Paneteam)
		}
		sock := cfg.Paneteam.TmuxSocket
		if other, ok := seen[sock]; ok {
			l.t.Errorf("teams %s and %s share the tmux server %s", other, n, sock)
		}
		seen[sock] = n
		panes, err := tmux.Server{Socket: sock}.AllPanes(context.Background())
		if err != nil {
			l.t.Fatal(err)
		}
		for _, p := range panes {
			if p.Agent != "" && !strings.HasSuffix(p.Agent, "@"+n) {
				l.t.Errorf("team %s's server %s holds %s's pane %s", n, sock, p.Agent, p.ID)
			}
		}
	}
}

// attachShows runs 'paneteam attach --team name' in a terminal (a pane of
// a viewer's tmux server of the test's own, as a person's terminal
// outside tmux) and asserts that it shows that team's teammates, and no
// other team's.
func (l *oneLead) attachShows(name string, all []string) {
	l.t.Helper()
	viewer := testutil.TmuxServer(l.t)
	argv := []string{"env", "-u", "TMUX", "-u", "TMUX_PANE"}
	argv = append(argv, l.vars...)
	argv = append(argv, l.bin, "attach", "--team", name)
	var quoted []string
	for _, a := range argv {
		quoted = append(quoted, tmux.ShellQuote(a))
	}
	ctx := context.Background()
	pane, err := viewer.Run(ctx, "new-window", "-t", "guard", "-P", "-F", "#{pane_id}", "exec "+strings.Join(quoted, " "))
	if err != nil {
		l.t.Fatal(err)
	}
	pane = strings.TrimSpace(pane)
	// A failed attach stays on screen to say why.
	if _, err := viewer.Run(ctx, "set-option", "-p", "-t", pane, "remain-on-exit", "on"); err != nil {
		l.t.Fatal(err)
	}
	var screen string
	defer func() {
		if l.t.Failed() {
			l.t.Logf("the terminal shows:\n%s", screen)
		}
	}()
	testutil.Eventually(l.t, 10*time.Second, "attach --team "+name+" to show its teammates", func() bool {
		screen, _ = viewer.Run(ctx, "capture-pane", "-p", "-t", pane)
		return strings.Contains(screen, "I am alice@"+name) && strings.Contains(screen, "I am bob@"+name)
	})
	for _, other := range all {
		if other != name && strings.Contains(screen, "@"+other) {
			l.t.Errorf("attach --team %s shows team %s's panes:\n%s", name, other, screen)
		}
	}
}
