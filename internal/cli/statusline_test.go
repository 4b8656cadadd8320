package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// The tmux status line runs for every tmux client every few seconds: it
// must judge every member's pane from one tmux call, and agree with what
// `status --json` says about each pane, which asks that one question too.
func TestStatusTmuxSegmentMakesOneTmuxCall(t *testing.T) {
	srv := testutil.TmuxServer(t)
	bin := testutil.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	newPane := func() string {
		id, err := srv.Run(ctx, "new-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sleep 600")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(id)
	}
	root := testutil.Root(t)
	tm, _, err := team.Create(root, "t", team.CreateOptions{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	// alice: her pane, alive; bob: his pane was closed; carol: the id now
	// names a pane of someone else (tmux reuses ids after a restart); dave
	// and erin: alive and idle.
	panes := map[string]string{"alice": newPane(), "bob": newPane(), "carol": newPane(), "dave": newPane(), "erin": newPane()}
	busy := map[string]bool{"alice": true, "bob": true}
	if _, err := tm.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		for _, n := range []string{"alice", "bob", "carol", "dave", "erin"} {
			m, err := c.AddMember(team.Member{Name: n, Cwd: root})
			if err != nil {
				return err
			}
			active := busy[n]
			m.IsActive, m.BackendType, m.TmuxPaneID = &active, team.BackendTmux, panes[n]
			m.Paneteam = &team.MemberMeta{TmuxSocket: srv.Socket}
			owner := m.AgentID
			if n == "carol" {
				owner = "someone@else"
			}
			if _, err := srv.Run(ctx, "set-option", "-p", "-t", panes[n], "@paneteam-agent", owner); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A second team on the same server is judged from the same listing.
	tu, _, err := team.Create(root, "u", team.CreateOptions{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	zoePane := newPane()
	if _, err := tu.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		m, err := c.AddMember(team.Member{Name: "zoe", Cwd: root})
		if err != nil {
			return err
		}
		m.BackendType, m.TmuxPaneID, m.Paneteam = team.BackendTmux, zoePane, &team.MemberMeta{TmuxSocket: srv.Socket}
		_, err = srv.Run(ctx, "set-option", "-p", "-t", zoePane, "@paneteam-agent", m.AgentID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "kill-pane", "-t", panes["bob"]); err != nil {
		t.Fatal(err)
	}
	if err := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{}).Append(ctx,
		mailbox.Message{From: "alice", Text: "done", Timestamp: time.Now().UTC().Format(time.RFC3339Nano)}); err != nil {
		t.Fatal(err)
	}

	// A tmux on PATH that logs each call before running the real one.
	real := testutil.RequireTool(t, "tmux")
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	// One "CALL" line per call: an argument (a -F format) may hold newlines.
	script := "#!/bin/sh\nprintf 'CALL %s\\n' \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	testutil.WriteExecutable(t, filepath.Join(dir, "tmux"), []byte(script))
	run := func(args ...string) string {
		t.Helper()
		os.Remove(log)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = testutil.Env("PANETEAM_ROOT="+root, "HOME="+dir, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("paneteam %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	seg := run("status", "--format", "tmux")
	calls, _ := os.ReadFile(log)
	if n := strings.Count(string(calls), "CALL "); n != 1 {
		t.Errorf("status --format tmux made %d tmux calls, want 1:\n%s", n, calls)
	}
	// Each teammate counts once, in its state as status judges it: alice
	// busy, dave and erin idle, bob and carol gone (their panes dead).
	if want := "t ▶1 ⏸2 #[fg=red]✗2#[default] #[fg=yellow,bold]✉1#[default]  u ▶1 ⏸0\n"; seg != want {
		t.Errorf("segment %q, want %q", seg, want)
	}

	// The full status agrees pane by pane.
	var teams []teamStatus
	if err := json.Unmarshal([]byte(run("status", "--json")), &teams); err != nil || len(teams) != 2 {
		t.Fatalf("status --json: %v %+v", err, teams)
	}
	// and asks tmux the same one question.
	if calls, _ := os.ReadFile(log); strings.Count(string(calls), "CALL ") != 1 {
		t.Errorf("status --json made %d tmux calls, want 1:\n%s", strings.Count(string(calls), "CALL "), calls)
	}
	want := map[string]string{"alice": paneAlive, "bob": paneDead, "carol": paneDead, "dave": paneAlive, "erin": paneAlive}
	state := map[string]teamwatch.State{"alice": teamwatch.StateActive, "bob": teamwatch.StateGone, "carol": teamwatch.StateGone,
		"dave": teamwatch.StateIdle, "erin": teamwatch.StateIdle}
	for _, m := range teams[0].Members {
		if w, ok := want[m.Name]; ok && (m.Pane != w || m.State != state[m.Name]) {
			t.Errorf("status --json: %s's pane is %s (%s), want %s (%s)", m.Name, m.Pane, m.State, w, state[m.Name])
		}
	}
}

// TestStatusTmuxSegmentFromTheStatusLinesPanes: given the panes of its own
// server as tmux expands them into the #(command) (--panes, with $TMUX set
// as tmux sets it for the command), the status line runs no tmux client
// and says what it says after asking tmux: a pane gone, a pane of someone
// else and a dead pane are still told apart. A listing that does not read
// is ignored, and tmux is asked as before.
func TestStatusTmuxSegmentFromTheStatusLinesPanes(t *testing.T) {
	srv := testutil.TmuxServer(t)
	bin := testutil.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	root := testutil.Root(t)
	tm, _, err := team.Create(root, "t", team.CreateOptions{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	// alice alive and busy, bob's pane closed, carol's id names someone
	// else's pane, dave's command exited (the pane remains), erin idle,
	// and zoë's name, as another tool may write it, holds a letter the
	// listing leaves out.
	names := []string{"alice", "bob", "carol", "dave", "erin", "zoë"}
	panes := map[string]string{}
	for _, n := range names {
		id, err := srv.Run(ctx, "new-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sleep 600")
		if err != nil {
			t.Fatal(err)
		}
		panes[n] = strings.TrimSpace(id)
	}
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", panes["dave"], "remain-on-exit", "on"); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		for _, n := range names {
			m, err := c.AddMember(team.Member{Name: n, Cwd: root})
			if err != nil {
				return err
			}
			if n == "zoë" {
				// As another tool may write the row: AddMember would
				// have made the name zo-.
				m.Name, m.AgentID = n, team.AgentID(n, c.Name)
			}
			active := n == "alice"
			m.IsActive, m.BackendType, m.TmuxPaneID = &active, team.BackendTmux, panes[n]
			m.Paneteam = &team.MemberMeta{TmuxSocket: srv.Socket}
			owner := m.AgentID
			if n == "carol" {
				owner = "someone@else"
			}
			if _, err := srv.Run(ctx, "set-option", "-p", "-t", panes[n], "@paneteam-agent", owner); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "kill-pane", "-t", panes["bob"]); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "respawn-pane", "-k", "-t", panes["dave"], "true"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "dave's command to exit", func() bool {
		out, _ := srv.Run(ctx, "display-message", "-p", "-t", panes["dave"], "#{pane_dead}")
		return strings.TrimSpace(out) == "1"
	})
	// What tmux hands the #(command) of its status line.
	listing, err := srv.Run(ctx, "display-message", "-p", tmux.StatusPanesFormat)
	if err != nil {
		t.Fatal(err)
	}

	real := testutil.RequireTool(t, "tmux")
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	testutil.WriteExecutable(t, filepath.Join(dir, "tmux"), []byte("#!/bin/sh\nprintf 'CALL %s\\n' \"$*\" >> '"+log+"'\nexec '"+real+"' \"$@\"\n"))
	run := func(args ...string) (string, int) {
		t.Helper()
		os.Remove(log)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = testutil.Env("PANETEAM_ROOT="+root, "HOME="+dir, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"),
			"TMUX="+srv.Socket+",1,0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("paneteam %s: %v", strings.Join(args, " "), err)
		}
		calls, _ := os.ReadFile(log)
		return string(out), strings.Count(string(calls), "CALL ")
	}
	asked, n := run("status", "--format", "tmux")
	if n != 1 {
		t.Errorf("without --panes: %d tmux calls, want 1", n)
	}
	// alice busy, erin and zoë idle; bob, carol and dave gone.
	if want := "t ▶1 ⏸2 #[fg=red]✗3#[default]\n"; asked != want {
		t.Errorf("segment asking tmux %q, want %q", asked, want)
	}
	given, n := run("status", "--format", "tmux", "--panes", listing)
	if n != 0 || given != asked {
		t.Errorf("with --panes %q: %d tmux calls and %q, want none and %q", listing, n, given, asked)
	}
	if odd, n := run("status", "--format", "tmux", "--panes", "not a listing"); n != 1 || odd != asked {
		t.Errorf("with a listing that does not read: %d tmux calls and %q, want 1 and %q", n, odd, asked)
	}
	// The example configuration passes the same format.
	conf, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "tmux.conf.example"))
	if err != nil || !strings.Contains(string(conf), "status --format tmux --panes '"+tmux.StatusPanesFormat+"'") {
		t.Errorf("tmux.conf.example does not pass --panes '%s' (%v)", tmux.StatusPanesFormat, err)
	}
}
