package tmuxconf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// markers are the files the texts below would create if anything ran
// them, in the folder every process of the test starts in (and HOME).
var markers = []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"}

// texts are typed into every binding. The first ones are issue 12's.
var texts = []string{
	"dollar $(touch x1) end",
	"back `touch x2` end",
	"it's apostrophe",
	`dq "quoted" end`,
	"#(touch x3)",
	"#{pane_id}",
	"%1",
	`back\slash; semi;\ end \\ ;`,
	"ünïcødé 日本語 🙂 ok",
	`'; touch x4; echo '`,
}

// fourK is a 4096-byte line full of the same traps.
var fourK = func() string {
	unit := "4K $(touch x5) `touch x6` #(touch x7) #{pane_id} %1 ' \" \\ ; é日 "
	s := strings.Repeat(unit, 4096/len(unit)+1)
	for len(s) > 4096 || !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + strings.Repeat("z", 4096-len(s))
}()

// TestBindingsDeliverExactlyWhatWasTyped loads tmux.conf.example into a
// private tmux server whose PATH starts with the paneteam under test,
// attaches a real tmux client to it from inside a pane of a second
// private server (so keys are pressed with send-keys on that pane), and
// answers every binding's questions with texts full of shell and tmux
// syntax. Each must arrive byte for byte, and nothing may run.
//
// PANETEAM_TMUXCONF names another file to check (the test should fail on
// a file whose bindings paste answers into run-shell).
func TestBindingsDeliverExactlyWhatWasTyped(t *testing.T) {
	h := start(t)

	// prefix + M: each text to alice.
	h.spawnAlice()
	for _, text := range append(slices.Clone(texts), fourK) {
		h.press("M")
		h.answer("to:", "alice")
		h.answer("message:", text)
		h.waitInbox("alice", text)
		h.waitGone("message:")
		h.checkMarkers()
	}

	// A multi-line text between bracketed-paste marks is one message.
	// (Whether a terminal sends the marks to a popup is up to tmux and
	// the terminal; paneteam asks for them with ESC [ ? 2004 h.)
	h.press("M")
	h.answer("to:", "alice")
	h.answer("message:", "\x1b[200~first line $(touch x1)\rsecond line\r\nthird\x1b[201~")
	h.waitInbox("alice", "first line $(touch x1)\nsecond line\nthird")
	h.waitGone("message:")

	// prefix + C-t: a shell teammate, named with shell syntax; M finds it
	// by the name typed at spawn.
	shellName := "it's $(touch x8) shell"
	h.press("C-t")
	h.answer("teammate name:", shellName)
	shellMember := team.MemberName(shellName)
	h.waitMember(shellMember, true)
	h.waitGone("teammate name:")
	h.press("M")
	h.answer("to:", shellName)
	h.answer("message:", texts[0])
	h.waitInbox(shellMember, texts[0])
	h.waitGone("message:")

	// prefix + T: a Claude Code teammate per text, as its name and its
	// first prompt; then H, U and X with the same text as the name.
	for i, text := range texts {
		prompt := text
		if i == 0 {
			prompt = fourK
		}
		h.press("T")
		h.answer("teammate name:", text)
		h.answer("first prompt:", prompt)
		name := team.MemberName(text)
		m := h.waitMember(name, true)
		h.waitGone("first prompt:")
		if m.Prompt != prompt {
			t.Errorf("spawned %s with prompt %q, want %q", name, clip(m.Prompt), clip(prompt))
		}
		h.waitInbox(name, prompt)

		h.press("H")
		h.answer("hide teammate:", text)
		h.waitHidden(name, true)
		h.waitGone("hide teammate:")

		h.press(keyOf("show"))
		h.answer("show teammate:", text)
		h.waitHidden(name, false)
		h.waitGone("show teammate:")

		h.press("X")
		h.answer("stop teammate:", text)
		h.waitMember(name, false)
		h.waitGone("stop teammate:")
		h.checkMarkers()
	}
}

// A binding that fails says why, and waits for a key before closing.
func TestBindingFailureIsShown(t *testing.T) {
	h := start(t)
	h.inner("set-option", "-t", "lead", tmux.TeamOption, "no-such-team")
	h.press("M")
	h.waitScreen("the error in the popup", func(s string) bool {
		return strings.Contains(s, "no-such-team") && strings.Contains(s, "press any key")
	})
	h.keys("q")
	h.waitGone("press any key")
	h.checkMarkers()

	// prefix + A with no pane to attach to: the reason stays up.
	h.inner("set-option", "-t", "lead", tmux.TeamOption, "demo")
	h.press("A")
	h.waitScreen("attach's error in the popup", func(s string) bool { return strings.Contains(s, "has no tmux panes") })
	h.keys("Escape")
	h.waitGone("has no tmux panes")
}

// prefix + N shows the lead's inbox in a popup, a teammate's message as
// text; closing it marks what was shown read.
func TestInboxPopup(t *testing.T) {
	h := start(t)
	h.spawnAlice()
	text := "look: $(touch x1) #(touch x3) #{pane_id} `touch x2`"
	run(t, h.work, testutil.Env("PANETEAM_ROOT="+h.root), testutil.Binary(t), "send", "--team", "demo", "--to", "team-lead", "--from", "alice", text)
	h.press(keyOf("inbox"))
	h.waitScreen("the message in the popup", func(s string) bool { return strings.Contains(s, text) })
	h.keys("C-c")
	h.waitGone(text)
	unread, err := mailbox.New(filepath.Join(h.root, "teams", "demo", "inboxes", "team-lead.json"), lockfile.Options{}).Unread()
	if err != nil || len(unread) != 0 {
		t.Errorf("after the popup: %d unread, %v", len(unread), err)
	}
	h.checkMarkers()
}

// The status line shows team names as text: a name holding #(...) or
// #{...} (config.json is written by other programs too) is not run or
// expanded by tmux, which expands formats in what #(...) prints.
func TestStatusLineShowsNamesAsText(t *testing.T) {
	h := start(t)
	evil := "ev#(touch x1)#{pane_id}#[fg=red]il"
	dir := filepath.Join(h.root, "teams", team.SanitizeTeam(evil))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := team.Load(filepath.Join(h.root, "teams", "demo", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name = evil
	cfg.Members = nil
	b, err := cfg.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	h.inner("set-option", "-g", "status-interval", "1")
	h.inner("set-option", "-g", "status-right-length", "200")
	h.waitScreen("the team's name, as it is, in the status line", func(s string) bool {
		return strings.Contains(s, evil+" ▶0 ⏸0")
	})
	h.checkMarkers()
}

// harness is the two tmux servers, the team root and the folder where
// marker files would appear.
type harness struct {
	t           *testing.T
	innerSock   string
	outerSock   string
	root, work  string // work is also the servers' HOME
	bin         string // the paneteam on the servers' PATH
	innerServer tmux.Server
}

func start(t *testing.T) *harness {
	t.Helper()
	return startWith(t, nil)
}

// startWith is start with the server's configuration written by conf
// (given the harness, its folders made, before any server starts), which
// returns its path; nil loads tmux.conf.example (or PANETEAM_TMUXCONF).
func startWith(t *testing.T, conf func(h *harness) string) *harness {
	t.Helper()
	testutil.RequireTool(t, "tmux")
	bin := testutil.Binary(t)
	testutil.DashboardBinary(t) // the W and P bindings' dashboard
	dir := testutil.ShortTempDir(t)
	h := &harness{t: t, innerSock: filepath.Join(dir, "i"), outerSock: filepath.Join(dir, "o"),
		root: filepath.Join(dir, "root"), work: filepath.Join(dir, "w")}
	h.innerServer = tmux.Server{Socket: h.innerSock}
	binDir := filepath.Join(dir, "bin")
	for _, d := range []string{h.root, h.work, binDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(binDir, "paneteam")); err != nil {
		t.Fatal(err)
	}
	h.bin = filepath.Join(binDir, "paneteam")
	confPath := os.Getenv("PANETEAM_TMUXCONF")
	switch {
	case conf != nil:
		confPath = conf(h)
	case confPath == "":
		confPath = filepath.Join(testutil.ModuleRoot(), "tmux.conf.example")
	}
	// A stand-in for Claude Code: prompt-spawned teammates only need a
	// process that stays up; what reaches them is read from the files.
	testutil.WriteExecutable(t, filepath.Join(binDir, "claude"), []byte("#!/bin/sh\nexec sleep 2147483647\n"))
	env := testutil.Env("PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PANETEAM_ROOT="+h.root, "HOME="+h.work, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")

	// The team, then the server the bindings live in (its global
	// environment is the one it starts with: PATH and PANETEAM_ROOT).
	run(t, h.work, env, bin, "team-create", "demo")
	run(t, h.work, env, "tmux", "-S", h.innerSock, "-f", confPath, "new-session", "-d", "-s", "lead", "-x", "200", "-y", "50", "cat")
	t.Cleanup(func() { exec.Command("tmux", "-S", h.innerSock, "kill-server").Run() })
	h.inner("set-option", "-t", "lead", tmux.TeamOption, "demo")

	run(t, h.work, env, "tmux", "-S", h.outerSock, "-f", "/dev/null", "new-session", "-d", "-s", "o", "-x", "200", "-y", "50",
		"tmux", "-u", "-S", h.innerSock, "attach", "-t", "lead")
	t.Cleanup(func() { exec.Command("tmux", "-S", h.outerSock, "kill-server").Run() })
	testutil.Eventually(t, 10*time.Second, "a client attached to the server under test", func() bool {
		out, _ := h.innerServer.Run(context.Background(), "list-clients")
		return strings.TrimSpace(out) != ""
	})
	return h
}

// spawnAlice adds a teammate beside the lead with paneteam itself, not
// through a binding.
func (h *harness) spawnAlice() {
	h.t.Helper()
	lead := strings.TrimSpace(h.inner("display-message", "-p", "-t", "lead", "#{pane_id}"))
	env := testutil.Env(append(testutil.TmuxEnv(h.t, h.innerServer, lead), "PANETEAM_ROOT="+h.root)...)
	run(h.t, h.work, env, testutil.Binary(h.t), "spawn-pane", "--team", "demo", "--name", "alice", "--", "cat")
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (h *harness) inner(args ...string) string {
	h.t.Helper()
	out, err := h.innerServer.Run(context.Background(), args...)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

func (h *harness) outer(args ...string) string {
	h.t.Helper()
	out, err := tmux.Server{Socket: h.outerSock}.Run(context.Background(), args...)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// keys presses keys (tmux key names) in the attached client's terminal.
func (h *harness) keys(keys ...string) { h.outer(append([]string{"send-keys", "-t", "o"}, keys...)...) }

// press presses the prefix, then key.
func (h *harness) press(key string) { h.keys("C-b", key) }

// typeText types text literally, in pieces as a terminal would deliver a
// long paste (and under tmux's command size limit).
func (h *harness) typeText(text string) {
	for len(text) > 0 {
		n := min(len(text), 256)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n--
		}
		h.keys("-l", text[:n])
		text = text[n:]
	}
}

// screen is what the attached client shows (popup and status line
// included).
func (h *harness) screen() string {
	out, _ := tmux.Server{Socket: h.outerSock}.Run(context.Background(), "capture-pane", "-p", "-t", "o")
	return out
}

func (h *harness) waitScreen(what string, cond func(string) bool) {
	h.t.Helper()
	testutil.Eventually(h.t, 15*time.Second, "waiting for "+what, func() error {
		if s := h.screen(); !cond(s) {
			return fmt.Errorf("the screen shows:\n%s", s)
		}
		return nil
	})
}

// answer waits for a question, types text and Enter.
func (h *harness) answer(label, text string) {
	h.t.Helper()
	h.waitScreen("the question "+label, func(s string) bool { return strings.Contains(s, label) })
	h.typeText(text)
	h.keys("Enter")
}

// waitGone waits for label to go and the popup that showed it, if any,
// to close. A program in a popup clears its screen as it ends, a moment
// before tmux closes the popup: keys pressed in that moment still go to
// the popup, and a prefix key meant to open the next one is lost.
func (h *harness) waitGone(label string) {
	h.t.Helper()
	h.waitScreen(label+" and its popup to go away", func(s string) bool {
		return !strings.Contains(s, label) && !strings.Contains(s, "┌")
	})
}

func (h *harness) config() *team.Config {
	h.t.Helper()
	cfg, err := team.Load(filepath.Join(h.root, "teams", "demo", "config.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	return cfg
}

func (h *harness) waitMember(name string, present bool) team.Member {
	h.t.Helper()
	var m team.Member
	h.waitFor("member "+name+map[bool]string{true: " to join", false: " to leave"}[present], func() bool {
		got := h.config().Member(name)
		if got != nil {
			m = *got
		}
		return (got != nil && got.TmuxPaneID != "") == present
	})
	return m
}

func (h *harness) waitHidden(name string, hidden bool) {
	h.t.Helper()
	h.waitFor(name+map[bool]string{true: " to be hidden", false: " to be shown"}[hidden], func() bool {
		cfg := h.config()
		m := cfg.Member(name)
		return m != nil && slices.Contains(cfg.HiddenPaneIDs, m.TmuxPaneID) == hidden
	})
}

// waitInbox waits for a message in name's inbox, checks that it is text
// byte for byte, and empties the inbox for the next one.
func (h *harness) waitInbox(name, text string) {
	h.t.Helper()
	path := filepath.Join(h.root, "teams", "demo", "inboxes", name+".json")
	inbox := mailbox.New(path, lockfile.Options{})
	var got []mailbox.Message
	h.waitFor("a message in "+name+"'s inbox", func() bool {
		got, _ = inbox.ReadAll()
		return len(got) > 0
	})
	if len(got) != 1 || got[0].Text != text {
		var seen []string
		for _, m := range got {
			seen = append(seen, clip(m.Text))
		}
		h.t.Errorf("%s received %q, typed %q", name, seen, clip(text))
	}
	if err := os.Remove(path); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	testutil.Eventually(h.t, 15*time.Second, "waiting for "+what, func() error {
		if !cond() {
			return screenShows{h}
		}
		return nil
	})
}

// screenShows is the screen, read only when a wait fails.
type screenShows struct{ h *harness }

func (e screenShows) Error() string { return "the screen shows:\n" + e.h.screen() }

// checkMarkers fails when any text was run by a shell.
func (h *harness) checkMarkers() {
	h.t.Helper()
	for _, m := range markers {
		if _, err := os.Stat(filepath.Join(h.work, m)); err == nil {
			h.t.Fatalf("%s exists: a typed text was run", filepath.Join(h.work, m))
		}
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:60] + "..." + s[len(s)-12:]
	}
	return s
}

// TestReviewPopupTakesFeedbackExactly: prefix + P reviews a teammate's
// request, and feedback typed with a denial reaches the teammate byte for
// byte, whatever shell or tmux syntax it holds, and runs nothing.
func TestReviewPopupTakesFeedbackExactly(t *testing.T) {
	h := start(t)
	h.spawnAlice()
	lead := mailbox.New(filepath.Join(h.root, "teams", "demo", "inboxes", team.LeadName+".json"), lockfile.Options{})
	for i, text := range append(slices.Clone(texts), fourK) {
		id := fmt.Sprintf("perm-1767225600%03d-abc%04d", i, i)
		frame, _ := json.Marshal(map[string]any{"type": "permission_request", "request_id": id, "agent_id": "alice",
			"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_%d", i), "description": "run it",
			"input": map[string]any{"command": "make test"}, "permission_suggestions": []any{}})
		if err := lead.Append(context.Background(), mailbox.Message{From: "alice", Text: string(frame), Timestamp: mailbox.Timestamp(time.Now())}); err != nil {
			t.Fatal(err)
		}
		h.openPopup("P", id)
		h.keys("d")
		h.waitScreen("the feedback question", func(s string) bool { return strings.Contains(s, "feedback") })
		if len(text) > 1000 {
			// A long text arrives as a terminal pastes it: the dashboard
			// asks for bracketed paste, so it is one paste, not 4096 keys.
			text4k := "\x1b[200~" + text + "\x1b[201~"
			h.typeText(text4k)
		} else {
			h.typeText(text)
		}
		h.keys("Enter")
		h.waitResponse(id, text)
		h.waitScreen("nothing left to review", func(s string) bool { return strings.Contains(s, "No requests are waiting") })
		h.keys("q")
		h.waitGone("paneteam requests:")
		h.checkMarkers()
	}
}

// openPopup presses prefix + key until the screen shows want. A press
// that lands while tmux is still closing the previous popup goes to that
// popup and is lost (a person never presses that fast); three presses
// that all open nothing fail the test.
func (h *harness) openPopup(key, want string) {
	h.t.Helper()
	for try := 1; ; try++ {
		h.press(key)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(h.screen(), want) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		if try == 3 {
			h.t.Fatalf("prefix + %s pressed %d times, and %q never showed; the screen shows:\n%s", key, try, want, h.screen())
		}
		h.t.Logf("prefix + %s opened nothing within 5s (try %d); pressing again", key, try)
	}
}

// waitResponse waits for the lead's answer to request id in alice's inbox,
// checks that it denies with feedback exactly, and empties the inbox.
func (h *harness) waitResponse(id, feedback string) {
	h.t.Helper()
	path := filepath.Join(h.root, "teams", "demo", "inboxes", "alice.json")
	inbox := mailbox.New(path, lockfile.Options{})
	var got []mailbox.Message
	h.waitFor("the answer to "+id, func() bool {
		got, _ = inbox.ReadAll()
		return len(got) > 0
	})
	var r struct {
		RequestID string `json:"request_id"`
		Subtype   string `json:"subtype"`
		Error     string `json:"error"`
	}
	if len(got) != 1 || json.Unmarshal([]byte(got[0].Text), &r) != nil || r.RequestID != id || r.Subtype != "error" || r.Error != feedback {
		h.t.Errorf("alice received %q, want a denial of %s with feedback %q", clip(fmt.Sprint(got)), id, clip(feedback))
	}
	if err := os.Remove(path); err != nil {
		h.t.Fatal(err)
	}
}

// TestDashboardMessageTakesTextExactly: prefix + W opens the dashboard,
// and a message typed there (m on a member) reaches the teammate byte for
// byte and runs nothing.
func TestDashboardMessageTakesTextExactly(t *testing.T) {
	h := start(t)
	h.spawnAlice()
	for _, text := range append(slices.Clone(texts), fourK) {
		h.openPopup("W", "REQUESTS WAITING FOR YOU")
		// Members are listed lead first: down selects alice.
		h.keys("Down", "m")
		h.waitScreen("the message question", func(s string) bool { return strings.Contains(s, "message to alice") })
		if len(text) > 1000 {
			h.typeText("\x1b[200~" + text + "\x1b[201~") // pasted, as a terminal pastes it
		} else {
			h.typeText(text)
		}
		h.keys("Enter")
		h.waitInbox("alice", text)
		h.keys("q")
		h.waitGone("message sent")
		h.checkMarkers()
	}
}
