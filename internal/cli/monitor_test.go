package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// watchTeam is a team in a temp root with teammates written straight into
// config.json (no panes: their state comes from their messages and
// isActive), for monitor and wait.
type watchTeam struct {
	t    *testing.T
	root string
	tm   team.Team
	vars []string
}

func newWatchTeam(t *testing.T, teammates ...string) *watchTeam {
	t.Helper()
	tm := teamtest.New(t, "crew", team.CreateOptions{})
	root := tm.Root
	w := &watchTeam{t: t, root: root, tm: tm, vars: testutil.Env("PANETEAM_ROOT="+root, "HOME="+t.TempDir())}
	for _, n := range teammates {
		w.join(n)
	}
	return w
}

func (w *watchTeam) join(name string) {
	w.t.Helper()
	teamtest.Add(w.t, w.tm, team.Member{Name: name, JoinedAt: time.Now().UnixMilli(), Cwd: "/"})
}

func (w *watchTeam) leave(name string) {
	w.t.Helper()
	if _, err := w.tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.RemoveMember(name)
		return nil
	}); err != nil {
		w.t.Fatal(err)
	}
}

// send writes a message into to's inbox as its sender would.
func (w *watchTeam) send(from, to, text, summary string) {
	w.t.Helper()
	m := mailbox.Message{From: from, Text: text, Summary: summary, Timestamp: mailbox.Timestamp(time.Now())}
	if err := mailbox.New(w.tm.InboxPath(to), lockfile.Options{}).Append(context.Background(), m); err != nil {
		w.t.Fatal(err)
	}
}

func (w *watchTeam) frame(from, to string, v map[string]any) {
	w.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		w.t.Fatal(err)
	}
	w.send(from, to, string(b), "")
}

func (w *watchTeam) idle(name, summary string) {
	w.frame(name, team.LeadName, map[string]any{"type": "idle_notification", "from": name,
		"timestamp": mailbox.Timestamp(time.Now()), "idleReason": "available", "summary": summary})
}

func (w *watchTeam) askPermission(name, id string) {
	w.frame(name, team.LeadName, map[string]any{"type": "permission_request", "request_id": id,
		"agent_id": name, "tool_name": "Bash", "tool_use_id": "toolu_1", "description": "run the tests",
		"input": map[string]any{"command": "make test"}, "permission_suggestions": []any{}})
}

func (w *watchTeam) answerPermission(name, id string) {
	w.frame(team.LeadName, name, map[string]any{"type": "permission_response", "request_id": id, "subtype": "success"})
}

// ptProc is a paneteam process started from the built binary.
type ptProc struct {
	cmd  *exec.Cmd
	out  *testutil.Buffer
	errb *testutil.Buffer
	done chan struct{}
	code int
}

func (w *watchTeam) start(args ...string) *ptProc {
	w.t.Helper()
	p := &ptProc{cmd: exec.Command(testutil.Binary(w.t), args...), out: &testutil.Buffer{}, errb: &testutil.Buffer{}, done: make(chan struct{})}
	p.cmd.Env = w.vars
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.errb
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.code = 0
		if err != nil {
			p.code = -1
			if ee, ok := err.(*exec.ExitError); ok {
				p.code = ee.ExitCode()
			}
		}
		close(p.done)
	}()
	w.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// exit waits for the process to end and returns its exit code.
func (p *ptProc) exit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		t.Fatalf("paneteam %v still running after %s\nstdout: %s\nstderr: %s", p.cmd.Args[1:], d, p.out, p.errb)
	}
	return 0
}

func (p *ptProc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// startMonitor starts monitor and waits until it has read the team.
func (w *watchTeam) startMonitor(extra ...string) *ptProc {
	w.t.Helper()
	p := w.start(append([]string{"monitor", "--team", "crew", "--poll", "200ms"}, extra...)...)
	testutil.Eventually(w.t, 10*time.Second, "monitor to start watching: "+p.errb.String(), func() bool {
		return strings.Contains(p.errb.String(), "watching team crew")
	})
	return p
}

// expect waits for a line holding every part in the human monitor, and
// for a JSON event matching want (every key given, equal) in the JSON one.
func expect(t *testing.T, human, js *ptProc, parts []string, want map[string]any) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, "a monitor line with "+strings.Join(parts, " | ")+" in:\n"+human.out.String(), func() bool {
		for _, line := range strings.Split(human.out.String(), "\n") {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(line, p)
			}
			if ok {
				return true
			}
		}
		return false
	})
	testutil.Eventually(t, 10*time.Second, "a JSON event like "+mustJSON(want)+" in:\n"+js.out.String(), func() bool {
		return jsonEvent(js.out.String(), want) != nil
	})
}

func jsonEvent(out string, want map[string]any) map[string]any {
	for _, line := range strings.Split(out, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && mustJSON(ev[k]) == mustJSON(v)
		}
		if ok {
			return ev
		}
	}
	return nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func countLines(out, part string) int {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, part) {
			n++
		}
	}
	return n
}

// TestMonitorReportsEachKindOfEvent makes every kind of event happen and
// checks its line in both the human and the JSON monitor.
func TestMonitorReportsEachKindOfEvent(t *testing.T) {
	w := newWatchTeam(t, "alice", "bob")
	// Old mail is not news: this message predates the monitor.
	w.send("alice", "bob", "before the monitor started", "old news")
	ctx := context.Background()
	human := w.startMonitor("--lock-age", "1s")
	js := w.startMonitor("--json", "--lock-age", "1s")

	w.join("carol")
	expect(t, human, js, []string{"member-joined", "carol", "joined the team"}, map[string]any{"kind": "member-joined", "who": "carol"})
	w.leave("carol")
	expect(t, human, js, []string{"member-left", "carol", "left the team"}, map[string]any{"kind": "member-left", "who": "carol"})

	// A summary with an escape sequence and a bidi override is shown, not obeyed.
	w.send("alice", "bob", "please review", "review \x1b[31mnow\u202e")
	expect(t, human, js, []string{"message", "alice", "to bob [message] $'review \\x1b[31mnow\\u202e'"},
		map[string]any{"kind": "message", "who": "alice", "to": "bob", "type": "message", "summary": "review \x1b[31mnow\u202e"})
	// A real line break and a typed backslash-n print differently.
	w.send("alice", "bob", "real break", "echo a\nb")
	expect(t, human, js, []string{"message", "alice", `to bob [message] $'echo a\nb'`},
		map[string]any{"kind": "message", "who": "alice", "summary": "echo a\nb"})
	w.send("alice", "bob", "typed break", `echo a\nb`)
	expect(t, human, js, []string{"message", "alice", `to bob [message] echo a\nb`},
		map[string]any{"kind": "message", "who": "alice", "summary": `echo a\nb`})

	w.idle("alice", "wrote the parser")
	expect(t, human, js, []string{"message", "alice", "to team-lead [idle_notification]"},
		map[string]any{"kind": "message", "who": "alice", "to": "team-lead", "type": "idle_notification"})
	expect(t, human, js, []string{"member-idle", "alice", "is idle: available: wrote the parser"},
		map[string]any{"kind": "member-idle", "who": "alice", "state": "idle", "summary": "available: wrote the parser"})
	w.send("team-lead", "alice", "now the tests", "")
	expect(t, human, js, []string{"member-active", "alice", "is active"}, map[string]any{"kind": "member-active", "who": "alice", "state": "active"})

	w.askPermission("alice", "perm-1-abc")
	expect(t, human, js, []string{"request-waiting", "alice", "1 request(s) waiting"}, map[string]any{"kind": "request-waiting", "who": "alice", "pending": 1})
	expect(t, human, js, []string{"member-needs-you", "alice", "needs you"}, map[string]any{"kind": "member-needs-you", "who": "alice", "state": "needs-you"})
	w.answerPermission("alice", "perm-1-abc")
	expect(t, human, js, []string{"request-answered", "alice", "0 still waiting"}, map[string]any{"kind": "request-answered", "who": "alice", "pending": 0})

	tasks := w.tm.Tasks(lockfile.Options{})
	build, err := tasks.Create(ctx, team.NewTask{Subject: "Build it"})
	if err != nil {
		t.Fatal(err)
	}
	test, err := tasks.Create(ctx, team.NewTask{Subject: "Test it", BlockedBy: []string{build.ID}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, human, js, []string{"task-created", "task " + test.ID + " created: Test it"}, map[string]any{"kind": "task-created", "task": test.ID, "subject": "Test it"})
	if _, err := tasks.Claim(ctx, build.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	expect(t, human, js, []string{"task-claimed", "bob", "task " + build.ID + " claimed by bob"}, map[string]any{"kind": "task-claimed", "task": build.ID, "owner": "bob"})
	if _, err := tasks.Update(ctx, build.ID, func(tk *team.Task) error { tk.Status = team.StatusCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	expect(t, human, js, []string{"task-completed", "task " + build.ID + " completed by bob"}, map[string]any{"kind": "task-completed", "task": build.ID, "owner": "bob"})
	expect(t, human, js, []string{"task-unblocked", "task " + test.ID + " unblocked"}, map[string]any{"kind": "task-unblocked", "task": test.ID})

	// A lock left behind (its holder died) is reported once.
	lock := w.tm.InboxPath("bob") + ".lock"
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(w.root, lock)
	expect(t, human, js, []string{"lock-held", "lock " + rel + " held for"}, map[string]any{"kind": "lock-held", "lock": rel})
	os.Remove(lock)

	// Messages moved to the archive (read) are not news again; Claude
	// Code's entries are known by msg_id even when rewritten.
	in := mailbox.New(w.tm.InboxPath("bob"), lockfile.Options{})
	unread, _ := in.Unread()
	if _, err := in.MarkRead(ctx, unread); err != nil {
		t.Fatal(err)
	}
	w.send("carl", "bob", "after the archive", "marker")
	expect(t, human, js, []string{"message", "carl", "marker"}, map[string]any{"kind": "message", "who": "carl", "summary": "marker"})
	if n := countLines(human.out.String(), "review \\x1b[31m"); n != 1 {
		t.Errorf("the archived message was reported %d times, want once:\n%s", n, human.out)
	}
	if strings.Contains(human.out.String(), "old news") {
		t.Errorf("a message from before the monitor started was reported:\n%s", human.out)
	}
	if strings.ContainsRune(human.out.String(), 0x1b) || strings.ContainsRune(human.out.String(), 0x202e) {
		t.Errorf("teammate text reached the terminal raw:\n%q", human.out)
	}

	if err := w.tm.Delete(); err != nil {
		t.Fatal(err)
	}
	expect(t, human, js, []string{"team-deleted", "team crew was deleted"}, map[string]any{"kind": "team-deleted", "team": "crew"})
	for _, p := range []*ptProc{human, js} {
		if code := p.exit(t, 10*time.Second); code != 0 {
			t.Errorf("monitor exited %d after the team was deleted, want 0: %s", code, p.errb)
		}
	}
}

// TestMonitorMessageByMsgID: Claude Code rewrites inboxes and
// deletes delivered entries; an entry with a msg_id is one message even
// if its other fields were rewritten.
func TestMonitorMessageByMsgID(t *testing.T) {
	w := newWatchTeam(t, "alice")
	js := w.startMonitor("--json")
	path := w.tm.InboxPath("alice")
	entry := func(text string) string {
		return `[{"from":"team-lead","text":"` + text + `","timestamp":"2026-01-01T00:00:00.000Z","msgV":1,"msg_id":"6f9c1d2e-0000","type":"message","read":false}]`
	}
	if err := lockfile.WriteAtomic(path, []byte(entry("hello"))); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the message event", func() bool {
		return jsonEvent(js.out.String(), map[string]any{"kind": "message", "who": "team-lead", "to": "alice"}) != nil
	})
	// Delivered: Claude Code deletes it; then the same id comes back (a
	// rewrite by a slower writer): still one message.
	if err := lockfile.WriteAtomic(path, []byte("[]")); err != nil {
		t.Fatal(err)
	}
	if err := lockfile.WriteAtomic(path, []byte(entry("hello again"))); err != nil {
		t.Fatal(err)
	}
	w.send("bob", "alice", "marker", "marker")
	testutil.Eventually(t, 10*time.Second, "the marker", func() bool {
		return jsonEvent(js.out.String(), map[string]any{"kind": "message", "who": "bob"}) != nil
	})
	if n := countLines(js.out.String(), `"who":"team-lead","to":"alice"`); n != 1 {
		t.Errorf("the entry with msg_id was reported %d times, want once:\n%s", n, js.out)
	}
}

// TestMonitorStopsOnSignal: Ctrl-C or SIGTERM ends monitor cleanly.
func TestMonitorStopsOnSignal(t *testing.T) {
	w := newWatchTeam(t, "alice")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p := w.startMonitor()
		if err := p.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if code := p.exit(t, 5*time.Second); code != 0 {
			t.Errorf("monitor exited %d on %v, want 0: %s", code, sig, p.errb)
		}
	}
}

// TestMonitorPaneGone: a teammate whose pane dies is reported gone.
func TestMonitorPaneGone(t *testing.T) {
	s := spInside(t)
	marks := filepath.Join(t.TempDir(), "marks")
	pane := s.spawn("alice", marks).PaneID
	w := &watchTeam{t: t, root: s.root, tm: team.Team{Root: s.root, Name: s.name}, vars: s.vars}
	p := w.startMonitor("--json")
	if _, err := s.srv.Run(context.Background(), "kill-pane", "-t", pane); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "member-gone for alice in:\n"+p.out.String(), func() bool {
		return jsonEvent(p.out.String(), map[string]any{"kind": teamwatch.KindGone, "who": "alice", "state": "gone"}) != nil
	})
}

// TestMonitorWarnsAboutAnUnreadableInbox: a broken inbox is said once on
// stderr, and the other events keep coming.
func TestMonitorWarnsAboutAnUnreadableInbox(t *testing.T) {
	w := newWatchTeam(t, "alice", "bob")
	p := w.startMonitor()
	if err := os.WriteFile(w.tm.InboxPath("alice"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "a warning naming alice's inbox in:\n"+p.errb.String(), func() bool {
		return strings.Contains(p.errb.String(), "warning:") && strings.Contains(p.errb.String(), "alice.json")
	})
	w.send("alice", "bob", "still here", "")
	testutil.Eventually(t, 10*time.Second, "the next message in:\n"+p.out.String(), func() bool {
		return strings.Contains(p.out.String(), "to bob [message] still here")
	})
	if n := strings.Count(p.errb.String(), "warning:"); n != 1 {
		t.Errorf("%d warnings, want the broken inbox said once:\n%s", n, p.errb)
	}
}
