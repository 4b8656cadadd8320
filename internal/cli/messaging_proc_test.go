package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// sendMany runs senders real `paneteam send` processes at once, each
// sending count messages "<prefix><s>-<i>" to name.
func sendMany(t *testing.T, root, name, prefix string, senders, count int) {
	t.Helper()
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for i := 0; i < count; i++ {
				out, err := ptCmd(t, root, "send", "--team", "t", "--to", name, "--from", "alice",
					fmt.Sprintf("%s%d-%d", prefix, s, i)).CombinedOutput()
				if err != nil {
					t.Errorf("send: %v: %s", err, out)
				}
			}
		}(s)
	}
	wg.Wait()
}

// `inbox --unread --mark-read` racing real senders: each message is shown
// exactly once, and only shown messages are ever marked read.
func TestMarkReadMarksExactlyWhatWasShownUnderConcurrentWrites(t *testing.T) {
	root, _, tm := msgTeam(t)
	shown := map[string]int{}
	read := func() {
		out, err := ptCmd(t, root, "inbox", "--team", "t", "--name", "bob", "--unread", "--mark-read", "--json").Output()
		if err != nil {
			t.Fatalf("inbox: %v", err)
		}
		var ms []mailbox.Message
		if err := json.Unmarshal(out, &ms); err != nil {
			t.Fatalf("inbox --json printed %q: %v", out, err)
		}
		for _, m := range ms {
			shown[m.Text]++
		}
	}
	done := make(chan struct{})
	go func() { defer close(done); sendMany(t, root, "bob", "m", 4, 10) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			read()
		}
	}
	read()
	for s := 0; s < 4; s++ {
		for i := 0; i < 10; i++ {
			if k := fmt.Sprintf("m%d-%d", s, i); shown[k] != 1 {
				t.Errorf("%s shown %d times, want once", k, shown[k])
			}
		}
	}
	if left := inboxOf(t, tm, "bob"); len(left) != 0 {
		t.Fatalf("messages left in the inbox after every one was shown and marked: %+v", left)
	}
	arch, err := mailbox.New(tm.InboxPath("bob"), lockOptsDefault()).Archived()
	if err != nil || len(arch) != 40 {
		t.Fatalf("archive holds %d messages (%v), want all 40", len(arch), err)
	}
}

// watcher runs `paneteam inbox-watch ... --json` and collects the texts it
// prints.
type watcher struct {
	mu    sync.Mutex
	texts []string
	wait  func() error
	stop  func()
}

func startWatcher(t *testing.T, root string, args ...string) *watcher {
	t.Helper()
	cmd := ptCmd(t, root, append([]string{"inbox-watch", "--team", "t", "--json"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watcher{}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var m mailbox.Message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("inbox-watch printed a line that is not a message: %q", sc.Text())
				continue
			}
			w.mu.Lock()
			w.texts = append(w.texts, m.Text)
			w.mu.Unlock()
		}
	}()
	w.wait = func() error { <-read; return cmd.Wait() }
	w.stop = func() { cmd.Process.Signal(syscall.SIGINT) }
	t.Cleanup(func() { cmd.Process.Kill() })
	return w
}

func (w *watcher) seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.texts...)
}

func (w *watcher) await(t *testing.T, text string) {
	t.Helper()
	testutil.Eventually(t, 20*time.Second, "inbox-watch to print "+text, func() bool {
		for _, s := range w.seen() {
			if s == text {
				return true
			}
		}
		return false
	})
}

// writeLikeClaude appends a message the way Claude Code does: under the
// proper-lockfile directory lock, re-read, then rewrite the file in place.
func writeLikeClaude(t *testing.T, path, text string) {
	t.Helper()
	unlock, err := lockfile.Lock(context.Background(), path, lockfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	b, _ := os.ReadFile(path)
	var ms []mailbox.Message
	json.Unmarshal(b, &ms)
	ms = append(ms, mailbox.Message{From: "claude", Text: text, Timestamp: mailbox.Timestamp(time.Now())})
	data, _ := mailbox.Encode(ms)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data[:len(data)/2])
	f.Write(data[len(data)/2:])
	f.Close()
}

func TestInboxWatchFollowsEveryKindOfRewriteAndMarksExactly(t *testing.T) {
	root, _, tm := msgTeam(t)
	path := tm.InboxPath("bob")
	w := startWatcher(t, root, "--name", "bob", "--mark-read")
	// Created late, by paneteam (atomic rename).
	if out, err := ptCmd(t, root, "send", "--team", "t", "--to", "bob", "first").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	w.await(t, "first")
	// Rewritten in place, as Claude Code does.
	for i := 0; i < 5; i++ {
		writeLikeClaude(t, path, fmt.Sprintf("claude-%d", i))
	}
	w.await(t, "claude-4")
	// Moved aside (as paneteam does with an inbox that does not parse).
	if err := os.Rename(path, path+".corrupt-test"); err != nil {
		t.Fatal(err)
	}
	sendMany(t, root, "bob", "burst", 3, 4)
	ptCmd(t, root, "send", "--team", "t", "--to", "bob", "last").Run()
	w.await(t, "last")

	w.stop()
	if err := w.wait(); err != nil {
		t.Fatalf("inbox-watch did not exit cleanly on SIGINT: %v", err)
	}
	count := map[string]int{}
	for _, s := range w.seen() {
		count[s]++
	}
	want := []string{"first", "last"}
	for i := 0; i < 5; i++ {
		want = append(want, fmt.Sprintf("claude-%d", i))
	}
	for s := 0; s < 3; s++ {
		for i := 0; i < 4; i++ {
			want = append(want, fmt.Sprintf("burst%d-%d", s, i))
		}
	}
	for _, k := range want {
		if count[k] != 1 {
			t.Errorf("%s printed %d times, want once", k, count[k])
		}
	}
	if len(w.seen()) != len(want) {
		t.Errorf("printed %d messages, want %d: %v", len(w.seen()), len(want), w.seen())
	}
	// --mark-read: everything printed since the move is read (and archived).
	for _, m := range inboxOf(t, tm, "bob") {
		t.Errorf("printed message %q still unread in the inbox", m.Text)
	}
}

// A Claude Code peer (Node, proper-lockfile) writes while paneteam sends:
// every acknowledged message is printed exactly once.
func TestInboxWatchWithClaudeCodeWriter(t *testing.T) {
	root, _, tm := msgTeam(t)
	path := tm.InboxPath("bob")
	w := startWatcher(t, root, "--name", "bob", "--mark-read")
	node := testutil.ClaudeInboxWriter(t, path, "claude", "node", 25)
	out, err := node.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	sendMany(t, root, "bob", "pt", 2, 10)
	acked, _ := io.ReadAll(out)
	node.Wait()
	ptCmd(t, root, "send", "--team", "t", "--to", "bob", "sentinel").Run()
	w.await(t, "sentinel")
	w.stop()
	w.wait()
	count := map[string]int{}
	for _, s := range w.seen() {
		count[s]++
	}
	for _, line := range strings.Split(string(acked), "\n") {
		if text, ok := strings.CutPrefix(line, "ACK "); ok && count[text] != 1 {
			t.Errorf("Claude-written %s printed %d times, want once", text, count[text])
		}
	}
	for s := 0; s < 2; s++ {
		for i := 0; i < 10; i++ {
			if k := fmt.Sprintf("pt%d-%d", s, i); count[k] != 1 {
				t.Errorf("%s printed %d times, want once", k, count[k])
			}
		}
	}
}

func TestInboxWatchOnceRunsCommandForMatchingMessage(t *testing.T) {
	root, vars, tm := msgTeam(t)
	ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "bob", "--type", "idle_notification")
	got := filepath.Join(t.TempDir(), "got.json")
	cmd := ptCmd(t, root, "inbox-watch", "--team", "t", "--once", "--mark-read", "--from", "alice", "--type", "message",
		"--exec", `cat > `+got+`; echo "$PANETEAM_FROM $PANETEAM_MESSAGE_TYPE" >> `+got)
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "bob", "not this one")
	ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "alice", "this one")
	if err := <-done; err != nil {
		t.Fatalf("inbox-watch --once: %v", err)
	}
	b, _ := os.ReadFile(got)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var m mailbox.Message
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &m) != nil || m.Text != "this one" || lines[1] != "alice message" {
		t.Fatalf("command received %q", b)
	}
	left := msgTexts(inboxOf(t, tm, "team-lead"))
	if !strings.Contains(left, "idle_notification") || !strings.Contains(left, "not this one") || strings.Contains(left, "this one,") {
		t.Fatalf("lead's inbox after --once --mark-read: %q", left)
	}
	if unread := len(inboxOf(t, tm, "team-lead")); unread != 2 {
		t.Fatalf("%d messages left, want the 2 filtered out", unread)
	}
}

func TestStatusReportsMembersUnreadAndTmuxSegment(t *testing.T) {
	_, vars, tm := msgTeam(t)
	if _, err := tm.Update(context.Background(), lockOptsDefault(), func(c *team.Config) error {
		idle := false
		c.Member("bob").IsActive = &idle
		c.Member("bob").BackendType = "no-such-backend"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "alice", "one")
	ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "bob", "two")
	ptRun(t, vars, "", "send", "--team", "t", "--to", "alice", "three")
	ptRun(t, vars, "", "team-create", "other")

	var teams []teamStatus
	if err := json.Unmarshal([]byte(ptRunTTY(t, vars, false, "status", "--json")), &teams); err != nil || len(teams) != 2 {
		t.Fatalf("status --json: %v %+v", err, teams)
	}
	byName := map[string]teamwatch.Member{}
	for _, m := range teams[1].Members {
		byName[m.Name] = m
	}
	if teams[1].Name != "t" || byName["team-lead"].Unread != 2 || byName["alice"].Unread != 1 ||
		!byName["alice"].Active || byName["bob"].Active {
		t.Fatalf("status of t: %+v", teams[1])
	}
	if b := byName["bob"]; b.Pane != paneUnknown || !strings.Contains(b.PaneError, "no-such-backend") {
		t.Fatalf("an undrivable backend should read unknown with the reason: %+v", b)
	}
	seg := ptRunTTY(t, vars, false, "status", "--team", "t", "--format", "tmux")
	if seg != "t ▶1 ⏸1 #[fg=yellow,bold]✉2#[default]\n" {
		t.Fatalf("tmux segment %q", seg)
	}
	text := ptRunTTY(t, vars, false, "status", "--team", "t")
	if !strings.Contains(text, "bob") || !strings.Contains(text, "idle") {
		t.Fatalf("status text:\n%s", text)
	}
}

// A sender's name holding a NUL (anyone's text; no environment variable can
// hold one) does not keep --exec from running for its message.
func TestInboxWatchExecRunsForASenderNameWithANul(t *testing.T) {
	_, _, tm := msgTeam(t)
	entry := "[\n  {\n    \"from\": \"ev\\u0000il\",\n    \"text\": \"hi\",\n    \"timestamp\": \"2026-03-01T10:00:00.000Z\",\n    \"read\": false\n  }\n]"
	if err := os.WriteFile(tm.InboxPath("team-lead"), []byte(entry), 0o600); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(t.TempDir(), "got")
	// Where the command cannot run, the message stays unread and --once
	// waits for ever: the test gives it a bound.
	cmd := ptCmd(t, tm.Root, "inbox-watch", "--team", "t", "--once", "--mark-read",
		"--exec", `cat > `+got+`; printf '%s\n' "$PANETEAM_FROM" >> `+got)
	var errs strings.Builder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("inbox-watch --once --exec never handled the message:\n%s", errs.String())
	}
	// $PANETEAM_FROM is a shown form of the name (the exact one is in
	// the JSON): whatever stands for the NUL, the name's letters are there.
	b, _ := os.ReadFile(got)
	from := strings.TrimSpace(string(b[bytes.LastIndexByte(bytes.TrimSpace(b), '\n')+1:]))
	if err != nil || !strings.Contains(string(b), `"text":"hi"`) || !strings.HasPrefix(strings.Trim(from, "$'"), "ev") ||
		!strings.HasSuffix(strings.Trim(from, "'"), "il") {
		t.Fatalf("inbox-watch --exec: %v\n%s\ncommand got %q", err, errs.String(), b)
	}
	if unread := len(inboxOf(t, tm, "team-lead")); unread != 0 {
		t.Fatalf("%d messages left unread", unread)
	}
}
