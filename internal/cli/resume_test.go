package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// rsWorld is a person's machine for resume: a team root, paneteam's
// state folder (launch records), a tmux socket folder, and the paneteam
// binary run with vars (plus TMUX and TMUX_PANE when inside).
type rsWorld struct {
	bin, root, state, sockets string
	vars                      []string
}

func newRSWorld(t *testing.T) *rsWorld {
	t.Helper()
	testutil.RequireTool(t, "tmux")
	tmpdir := testutil.ShortTempDir(t)
	real, _ := filepath.EvalSymlinks(tmpdir)
	w := &rsWorld{bin: testutil.Binary(t), root: testutil.Root(t), state: t.TempDir(),
		sockets: filepath.Join(real, "tmux-"+strconv.Itoa(os.Getuid()))}
	w.vars = []string{"PANETEAM_ROOT=" + w.root, "PANETEAM_STATE_DIR=" + w.state,
		"TMUX_TMPDIR=" + tmpdir, "PANETEAM_TMUX_CONFIG=/dev/null"}
	return w
}

func (w *rsWorld) run(t *testing.T, extra []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env = testutil.Env(append(append([]string{}, w.vars...), extra...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func (w *rsWorld) must(t *testing.T, extra []string, args ...string) string {
	t.Helper()
	out, errs, code := w.run(t, extra, args...)
	if code != 0 {
		t.Fatalf("paneteam %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

func (w *rsWorld) config(t *testing.T, name string) *team.Config {
	t.Helper()
	_, cfg, err := team.Open(w.root, name)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// echoTeammate is a wrapped program ('teammate -- CMD') that writes
// "started" to file, then every line typed into it (its inbox).
func echoTeammate(bin, file string) []string {
	return []string{bin, "teammate", "--", "/bin/sh", "-c", `echo "started $PANETEAM_AGENT" >> "$0"; exec cat >> "$0"`, file}
}

func fileHas(file, s string) func() bool {
	return func() bool {
		b, _ := os.ReadFile(file)
		return strings.Count(string(b), s) > 0
	}
}

func countIn(file, s string) int {
	b, _ := os.ReadFile(file)
	return strings.Count(string(b), s)
}

// TestResumeBringsBackATeamWhoseServerDied: outside tmux, a team on
// paneteam's private server loses the server and its lead. A message is
// sent while it is down; --dry-run starts nothing; resume starts both
// teammates again on the same socket, in panes, the wrapped program gets
// the message sent while it was down, the tasks are as they were, the
// resuming process leads the team, and a second resume leaves the running
// members alone.
func TestResumeBringsBackATeamWhoseServerDied(t *testing.T) {
	w := newRSWorld(t)
	lead := leadProcess(t)
	crew := strings.TrimSpace(w.must(t, nil, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid)))
	work := t.TempDir()
	echo, plain := filepath.Join(t.TempDir(), "echo"), filepath.Join(t.TempDir(), "plain")
	w.must(t, nil, append([]string{"spawn-pane", "--team", crew, "--name", "echo", "--cwd", work, "--"}, echoTeammate(w.bin, echo)...)...)
	w.must(t, nil, "spawn-pane", "--team", crew, "--name", "plain", "--cwd", work, "--",
		"/bin/sh", "-c", `echo "started $PANETEAM_AGENT $PWD" >> "$0"; exec sleep 600`, plain)
	testutil.Eventually(t, 10*time.Second, "both teammates to start", func() bool {
		return countIn(echo, "started echo") == 1 && countIn(plain, "started plain") == 1
	})
	w.must(t, nil, "task", "create", "--team", crew, "--subject", "ship it")
	w.must(t, nil, "task", "update", "--team", crew, "1", "--owner", "echo", "--status", "in_progress")
	tasksBefore := w.must(t, nil, "task", "list", "--team", crew, "--json")

	cfg := w.config(t, crew)
	socket := cfg.Paneteam.TmuxSocket
	srv := tmux.Server{Socket: socket}
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })
	if _, err := srv.Run(context.Background(), "kill-server"); err != nil {
		t.Fatal(err)
	}
	lead.Process.Kill()
	lead.Wait()
	w.must(t, nil, "send", "--team", crew, "--to", "echo", "sent while you were down")

	dry := w.must(t, nil, "resume", "--team", crew, "--dry-run")
	for _, want := range []string{"crew/echo: would be started again in tmux", "crew/plain: would be started again in tmux"} {
		if !strings.Contains(dry, want) {
			t.Errorf("resume --dry-run says:\n%s\nwant %q", dry, want)
		}
	}
	if _, err := srv.Run(context.Background(), "list-panes", "-a"); err == nil {
		t.Fatal("--dry-run started the tmux server again")
	}

	var res resume.Result
	if err := json.Unmarshal([]byte(w.must(t, nil, "resume", "--team", crew, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Started) != 2 {
		t.Fatalf("resume started %+v, want echo and plain", res.Started)
	}
	for _, s := range res.Started {
		if s.How != resume.Restarted || s.Backend != "tmux" || s.PaneID == "" || s.Error != "" {
			t.Errorf("%s: %+v; want restarted in a tmux pane", s.Name, s)
		}
	}
	testutil.Eventually(t, 10*time.Second, "both teammates to start again", func() bool {
		return countIn(echo, "started echo") == 2 && countIn(plain, "started plain "+work) == 2
	})
	testutil.Eventually(t, 10*time.Second, "the message sent while down to reach echo", fileHas(echo, "sent while you were down"))

	cfg = w.config(t, crew)
	if cfg.Paneteam.TmuxSocket != socket {
		t.Errorf("the team moved to server %s, want its own %s again", cfg.Paneteam.TmuxSocket, socket)
	}
	panes, err := srv.AllPanes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"echo", "plain"} {
		m := cfg.Member(name)
		found := false
		for _, p := range panes {
			found = found || p.ID == m.TmuxPaneID && p.Agent == m.AgentID
		}
		if !found {
			t.Errorf("%s's pane %s is not on %s carrying its id (panes: %+v)", name, m.TmuxPaneID, socket, panes)
		}
	}
	if l := team.LeadOf(cfg); l.State != team.LeadAlive || l.PID != int64(os.Getpid()) {
		t.Errorf("the team's lead after resume: %+v; want this test's process (the parent of resume), alive", l)
	}
	if got := w.must(t, nil, "task", "list", "--team", crew, "--json"); got != tasksBefore {
		t.Errorf("tasks changed by resume:\n%s\nwant\n%s", got, tasksBefore)
	}

	again := w.must(t, nil, "resume", "--team", crew)
	for _, want := range []string{"crew/echo: still running, left alone", "crew/plain: still running, left alone", "nothing to start"} {
		if !strings.Contains(again, want) {
			t.Errorf("a second resume says:\n%s\nwant %q", again, want)
		}
	}
	if countIn(echo, "started echo") != 2 {
		t.Error("a second resume started echo again")
	}
}

// TestResumeInsideTmuxAndRefusesPlantedRecords: inside tmux, the tmux
// server holding the lead's pane and its teammates dies; from a pane of
// a new server, resume splits the teammates beside it. A launch record
// another user could have written (writable by others, or owned by
// someone else) is not believed: that member is not started, and the
// run says why and fails.
func TestResumeInsideTmuxAndRefusesPlantedRecords(t *testing.T) {
	w := newRSWorld(t)
	old := testutil.TmuxServer(t)
	inOld := testutil.TmuxEnv(t, old, testutil.FirstPane(t, old))
	crew := strings.TrimSpace(w.must(t, inOld, "team-create", "crew"))
	files := map[string]string{}
	for _, name := range []string{"echo", "forged", "stranger"} {
		files[name] = filepath.Join(t.TempDir(), name)
		w.must(t, inOld, append([]string{"spawn-pane", "--team", crew, "--name", name, "--"}, echoTeammate(w.bin, files[name])...)...)
	}
	for name, f := range files {
		testutil.Eventually(t, 10*time.Second, name+" to start", fileHas(f, "started "+name))
	}
	if _, err := old.Run(context.Background(), "kill-server"); err != nil {
		t.Fatal(err)
	}

	recs, _ := filepath.Glob(filepath.Join(w.state, "launches", "*.json"))
	for _, f := range recs {
		switch {
		case strings.Contains(filepath.Base(f), ".forged."):
			if err := os.Chmod(f, 0o666); err != nil {
				t.Fatal(err)
			}
		case strings.Contains(filepath.Base(f), ".stranger.") && os.Getuid() == 0:
			if err := os.Chown(f, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}
	}

	srv := testutil.TmuxServer(t)
	leadPane := testutil.FirstPane(t, srv)
	out, errs, code := w.run(t, testutil.TmuxEnv(t, srv, leadPane), "resume", "--team", crew)
	if code == 0 || !strings.Contains(errs, "lets others write it: not believed") {
		t.Errorf("resume with a record others may write: exit %d\n%s\nwant a failure saying the record is not believed", code, errs)
	}
	if os.Getuid() == 0 && !strings.Contains(errs, "owned by uid 4242, not by you") {
		t.Errorf("resume with a record of another user:\n%s\nwant it refused", errs)
	}
	if !strings.Contains(out, "crew/forged: not started: no launch record that paneteam believes") {
		t.Errorf("resume says:\n%s\nwant forged not started", out)
	}
	testutil.Eventually(t, 10*time.Second, "echo to start again", func() bool { return countIn(files["echo"], "started echo") == 2 })
	time.Sleep(500 * time.Millisecond)
	if countIn(files["forged"], "started forged") != 1 {
		t.Error("forged, whose record others may write, was started again")
	}
	if os.Getuid() == 0 && countIn(files["stranger"], "started stranger") != 1 {
		t.Error("stranger, whose record another user owns, was started again")
	}

	cfg := w.config(t, crew)
	m := cfg.Member("echo")
	p, err := srv.PaneByID(context.Background(), m.TmuxPaneID)
	if err != nil || p.Agent != m.AgentID {
		t.Fatalf("echo's pane %s on the new server: %+v, %v", m.TmuxPaneID, p, err)
	}
	lead, err := srv.PaneByID(context.Background(), leadPane)
	if err != nil || p.WindowID != lead.WindowID {
		t.Errorf("echo's pane is in window %s, the lead's pane in %s (%v): want it split beside the lead", p.WindowID, lead.WindowID, err)
	}
	if l := team.LeadOf(cfg); l.State != team.LeadAlive || l.PID != int64(lead.PID) {
		t.Errorf("the team's lead: %+v; want the process of the pane resume ran in (%d)", l, lead.PID)
	}
}
