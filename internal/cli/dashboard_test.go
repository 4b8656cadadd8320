package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// dash is a dashboard running in a pane of a private tmux server, under
// a shell, as a person would start it.
type dash struct {
	t    *testing.T
	srv  tmux.Server
	pane string
	root string
}

const longSubject = "Write the login handler and make every error message say what to do next"

// dashTeam is team "crew" (alice, bob) with two tasks (2 blocked by 1)
// and the given requests waiting in the lead's inbox.
func dashTeam(t *testing.T, reqs ...mailbox.Message) (string, map[string]string) {
	t.Helper()
	root, vars := reqTeam(t)
	if _, errs, code := ptRun(t, vars, "", "task", "create", "-t", "crew", "-s", longSubject); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := ptRun(t, vars, "", "task", "create", "-t", "crew", "-s", "Test login", "--blocked-by", "1", "--owner", "bob"); code != 0 {
		t.Fatal(errs)
	}
	if len(reqs) > 0 {
		leadInbox(t, root, reqs...)
	}
	return root, vars
}

// startDash opens a w x h window running sh and types the dashboard's
// command line into it; extra are environment assignments for it.
func startDash(t *testing.T, root string, w, h int, args string, extra ...string) *dash {
	t.Helper()
	return startDashOn(t, testutil.TmuxServer(t), root, w, h, args, extra...)
}

// startDashOn is startDash in a new session "dash" on srv.
func startDashOn(t *testing.T, srv tmux.Server, root string, w, h int, args string, extra ...string) *dash {
	t.Helper()
	return startDashIn(t, srv, "", root, w, h, args, extra...)
}

// startDashIn is startDashOn with the dashboard started in the folder
// dir ("" is the shell's).
func startDashIn(t *testing.T, srv tmux.Server, dir, root string, w, h int, args string, extra ...string) *dash {
	t.Helper()
	ctx := context.Background()
	pane, err := srv.Run(ctx, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "dash", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
		"env", "-i", "PATH="+os.Getenv("PATH"), "HOME="+t.TempDir(), "TERM=screen", "PS1=$ ", "sh")
	if err != nil {
		t.Fatal(err)
	}
	d := &dash{t: t, srv: srv, pane: strings.TrimSpace(pane), root: root}
	testutil.DashboardBinary(t) // what 'paneteam dashboard' becomes
	env := "env PANETEAM_ROOT=" + root + " " + strings.Join(extra, " ")
	if dir != "" {
		env = "cd " + dir + " && " + env
	}
	d.keys("-l", env+" "+testutil.Binary(t)+" dashboard "+args+"; echo DASH\"\"-EXIT $?")
	d.keys("Enter")
	return d
}

func (d *dash) keys(keys ...string) {
	d.t.Helper()
	if _, err := d.srv.Run(context.Background(), append([]string{"send-keys", "-t", d.pane}, keys...)...); err != nil {
		d.t.Fatal(err)
	}
}

// typeText types text literally, as a person would.
func (d *dash) typeText(s string) { d.t.Helper(); d.keys("-l", s) }

func (d *dash) screen(flags ...string) string {
	d.t.Helper()
	out, err := d.srv.Run(context.Background(), append([]string{"capture-pane", "-p", "-t", d.pane}, flags...)...)
	if err != nil {
		d.t.Fatal(err)
	}
	return out
}

func (d *dash) format(f string) string {
	d.t.Helper()
	out, err := d.srv.Run(context.Background(), "display-message", "-p", "-t", d.pane, f)
	if err != nil {
		d.t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// waitFor waits until the screen shows want.
func (d *dash) waitFor(want string) string {
	d.t.Helper()
	var s string
	testutil.Eventually(d.t, 15*time.Second, fmt.Sprintf("screen never showed %q", want), func() error {
		if s = d.screen(); !strings.Contains(s, want) {
			return fmt.Errorf("it shows:\n%s", s)
		}
		return nil
	})
	return s
}

// waitGone waits until the screen no longer shows what.
func (d *dash) waitGone(what string) string {
	d.t.Helper()
	var s string
	testutil.Eventually(d.t, 15*time.Second, fmt.Sprintf("screen still shows %q", what), func() error {
		if s = d.screen(); strings.Contains(s, what) {
			return fmt.Errorf("it shows:\n%s", s)
		}
		return nil
	})
	return s
}

// checkFits fails when the screen is not exactly h lines of at most w
// columns, or when the header and key lines are not where they belong
// (a view taller than the window scrolls its header away).
func (d *dash) checkFits(w, h int) []string {
	d.t.Helper()
	lines := strings.Split(strings.TrimSuffix(d.screen(), "\n"), "\n")
	if len(lines) != h {
		d.t.Fatalf("screen has %d lines, want %d:\n%s", len(lines), h, strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > w {
			d.t.Fatalf("line %d is %d columns wide (> %d): %q", i+1, n, w, l)
		}
	}
	if !strings.Contains(lines[0], "paneteam dashboard: team crew") || !strings.Contains(lines[h-1], "q") {
		d.t.Fatalf("header or key line out of place:\n%s", strings.Join(lines, "\n"))
	}
	return lines
}

func permReq(id, from, cmd string, age time.Duration) mailbox.Message {
	in, _ := json.Marshal(map[string]string{"command": cmd, "description": "Run it"})
	return mailbox.Message{From: from, Text: permText(id, from, string(in)), Timestamp: mailbox.Timestamp(time.Now().Add(-age))}
}

const longCmd = "npm test -- --reporter spec --grep 'login handler' && echo tests-passed-and-the-end-is-here"

func TestDashboardShowsMembersTasksAndRequestsAt80x24(t *testing.T) {
	root, _ := dashTeam(t, permReq("perm-1767225600000-abc1234", "alice", longCmd, 3*time.Minute))
	d := startDash(t, root, 80, 24, "--team crew", "NO_COLOR=1")
	s := d.waitFor("REQUESTS")
	d.checkFits(80, 24)
	for _, want := range []string{
		"alice", "! NEEDS YOU", "waiting 1", "bob", // members and the mark that reads without colour
		"#1", "pending", "[blocks #2]", "#2", "in_progress", "Test login", "[blocked by #1]", // tasks and what blocks what
		"perm-1767225600000-ab", "Bash: npm test", " 3m ", // request: id, tool and input, age
	} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// Long text is cut with a visible mark in the list...
	if strings.Contains(s, longSubject) || strings.Contains(s, "tests-passed-and-the-end-is-here") || !strings.Contains(s, "…") {
		t.Errorf("long subject or command not cut with a mark at 80 columns:\n%s", s)
	}
	// ...and shown whole in the detail view: the request's whole input.
	d.keys("Tab", "Tab", "Enter")
	s = d.waitFor("input:")
	if !strings.Contains(strings.ReplaceAll(s, "\n", ""), "tests-passed-and-the-end-is-here") {
		t.Errorf("detail view does not show the whole command:\n%s", s)
	}
	d.keys("Escape")
	d.waitFor("REQUESTS")
	d.checkFits(80, 24)
}

func TestDashboardUsesTheWidthOfAWiderWindow(t *testing.T) {
	root, _ := dashTeam(t, permReq("perm-1767225600000-abc1234", "alice", longCmd, time.Minute))
	d := startDash(t, root, 160, 40, "--team crew")
	s := d.waitFor("REQUESTS")
	d.checkFits(160, 40)
	if !strings.Contains(s, longSubject) || !strings.Contains(s, "tests-passed-and-the-end-is-here") {
		t.Errorf("at 160 columns the subject and the command fit whole:\n%s", s)
	}
}

func TestDashboardNoColorWritesNoEscapes(t *testing.T) {
	root, _ := dashTeam(t, permReq("perm-1767225600000-abc1234", "alice", "make", time.Minute))
	for _, noColor := range []bool{true, false} {
		extra := []string{}
		if noColor {
			extra = append(extra, "NO_COLOR=1")
		}
		d := startDash(t, root, 80, 24, "--team crew", extra...)
		d.waitFor("REQUESTS")
		styled := d.screen("-e")
		has := strings.Contains(styled, "\x1b[")
		if noColor && has {
			t.Errorf("NO_COLOR screen has escape sequences:\n%q", styled)
		}
		if !noColor && !has {
			t.Errorf("with colour allowed the screen has no attributes at all, so the NO_COLOR check proves nothing:\n%q", styled)
		}
		d.keys("q")
		d.waitFor("DASH-EXIT 0")
	}
}

func TestDashboardApprovesTheSelectedRequest(t *testing.T) {
	root, _ := dashTeam(t, permReq("perm-1767225600000-abc1234", "alice", "npm test", time.Minute))
	d := startDash(t, root, 80, 24, "--team crew", "NO_COLOR=1")
	d.waitFor("Bash: npm test")
	d.keys("Tab", "Tab", "a")
	d.waitFor("shown whole") // the first key shows the request whole
	d.keys("a")
	d.waitFor("approved perm-1767225600000-abc1234 from alice")
	d.waitFor("REQUESTS WAITING FOR YOU (0)")
	msgs := teammateInbox(t, root, "alice")
	if len(msgs) != 1 {
		t.Fatalf("alice's inbox has %d messages, want the one response", len(msgs))
	}
	var resp struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		Subtype   string `json:"subtype"`
		Approved  struct {
			Digest string `json:"input_digest"`
		} `json:"approved_request"`
	}
	if err := json.Unmarshal([]byte(msgs[0].Text), &resp); err != nil || msgs[0].From != team.LeadName ||
		resp.Type != "permission_response" || resp.Subtype != "success" || resp.RequestID != "perm-1767225600000-abc1234" || resp.Approved.Digest == "" {
		t.Fatalf("response %+v from %s (%v): %s", resp, msgs[0].From, err, msgs[0].Text)
	}
	// paneteam's record of answered ids has it, so nothing answers twice.
	lead, err := approval.Open(root, "crew", lockfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := lead.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.All) != 1 || ls.State(ls.All[0]) != approval.StateAnswered {
		t.Fatalf("answered record: %d requests, state %v", len(ls.All), ls.State(ls.All[0]))
	}
}

func TestDashboardDeniesWithFeedback(t *testing.T) {
	root, _ := dashTeam(t, permReq("perm-1767225600000-abc1234", "alice", "rm -rf build", time.Minute))
	d := startDash(t, root, 80, 24, "--team crew", "NO_COLOR=1")
	d.waitFor("Bash: rm -rf build")
	d.keys("Tab", "Tab", "d")
	d.waitFor("shown whole")
	d.keys("d")
	d.waitFor("feedback (optional)")
	d.typeText("use make clean")
	d.waitFor("use make clean_")
	d.keys("Enter")
	d.waitFor("denied perm-1767225600000-abc1234 from alice")
	msgs := teammateInbox(t, root, "alice")
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, `"subtype":"error"`) || !strings.Contains(msgs[0].Text, `"error":"use make clean"`) {
		t.Fatalf("alice's inbox: %+v", msgs)
	}
}

func TestDashboardSendsAMessageToTheSelectedMember(t *testing.T) {
	root, _ := dashTeam(t)
	d := startDash(t, root, 80, 24, "--team crew", "NO_COLOR=1")
	d.waitFor("MEMBERS")
	// Members: team-lead, alice, bob; the cursor starts on the first.
	d.keys("Down")
	d.keys("m")
	d.waitFor("message to alice:")
	d.typeText("please rebase on main")
	d.keys("Enter")
	d.waitFor("message sent to alice")
	msgs := teammateInbox(t, root, "alice")
	if len(msgs) != 1 || msgs[0].Text != "please rebase on main" || msgs[0].From != team.LeadName || msgs[0].Read {
		t.Fatalf("alice's inbox: %+v", msgs)
	}
}

func TestDashboardFollowsTheTeamLive(t *testing.T) {
	root, _ := dashTeam(t)
	d := startDash(t, root, 80, 24, "--team crew --poll 1h", "NO_COLOR=1")
	d.waitFor("REQUESTS WAITING FOR YOU (0)")
	// A file event, not the poll (an hour), brings the request in.
	leadInbox(t, root, permReq("perm-1767225600000-abc1234", "alice", "make lint", time.Second))
	s := d.waitFor("Bash: make lint")
	if !strings.Contains(s, "REQUESTS WAITING FOR YOU (1)") || !strings.Contains(s, "! NEEDS YOU") {
		t.Fatalf("after a request arrived:\n%s", s)
	}
}

func TestDashboardQuitRestoresTheTerminal(t *testing.T) {
	root, _ := dashTeam(t)
	for _, quit := range [][]string{{"q"}, {"C-c"}} {
		d := startDash(t, root, 80, 24, "--team crew", "NO_COLOR=1")
		d.waitFor("MEMBERS")
		if d.format("#{alternate_on}") != "1" {
			t.Fatal("the dashboard does not use the alternate screen, so this test proves nothing")
		}
		d.keys(quit...)
		d.waitFor("DASH-EXIT 0")
		s := d.screen("-J")
		if d.format("#{alternate_on}") != "0" || d.format("#{cursor_flag}") != "1" {
			t.Fatalf("after %s: alternate screen %s, cursor %s", quit, d.format("#{alternate_on}"), d.format("#{cursor_flag}"))
		}
		// The shell's own screen is back: the command line typed, no dashboard.
		if !strings.Contains(s, "dashboard --team crew; echo DASH\"\"-EXIT") || strings.Contains(s, "MEMBERS") {
			t.Fatalf("after %s the screen is not the shell's:\n%s", quit, s)
		}
	}
}

func TestDashboardRestoresTheTerminalOnSIGTERMAndWhenTheTeamIsDeleted(t *testing.T) {
	root, _ := dashTeam(t)
	d := startDash(t, root, 80, 24, "--team crew", "NO_COLOR=1")
	d.waitFor("MEMBERS")
	pid := d.dashPID()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	d.waitFor("DASH-EXIT 0")
	if d.format("#{alternate_on}") != "0" || d.format("#{cursor_flag}") != "1" {
		t.Fatal("SIGTERM left the terminal in the alternate screen or the cursor hidden")
	}

	d = startDash(t, root, 80, 24, "--team crew", "NO_COLOR=1")
	d.waitFor("MEMBERS")
	if err := os.RemoveAll(filepath.Join(root, "teams", "crew")); err != nil {
		t.Fatal(err)
	}
	s := d.waitFor("DASH-EXIT 0")
	if !strings.Contains(s, "team crew was deleted") || d.format("#{alternate_on}") != "0" {
		t.Fatalf("after the team was deleted:\n%s", s)
	}
}

// dashPID is the paneteam process under the pane's shell.
func (d *dash) dashPID() int {
	d.t.Helper()
	shell := d.format("#{pane_pid}")
	var pid int
	testutil.Eventually(d.t, 5*time.Second, "paneteam under the shell", func() bool {
		b, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
		if err != nil {
			return false
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return false
		}
		_, err = fmt.Sscan(f[0], &pid)
		return err == nil
	})
	return pid
}

func TestReviewPopupAnswersWithSingleKeys(t *testing.T) {
	root, _ := dashTeam(t,
		permReq("perm-1767225600000-aaa1111", "alice", "npm test", 2*time.Minute),
		permReq("perm-1767225600001-bbb2222", "bob", "curl example.com", time.Minute))
	srvTeam := func(d *dash) {
		if _, err := d.srv.Run(context.Background(), "set-option", "-t", "dash", "@paneteam-team", "crew"); err != nil {
			t.Fatal(err)
		}
	}
	// As in a display-popup: TMUX names the server and the session, there
	// is no TMUX_PANE, and the command line names no team.
	d := startDashPopup(t, root, srvTeam)
	s := d.waitFor("request 1 of 2")
	if !strings.Contains(s, "npm test") || !strings.Contains(s, "from: alice") {
		t.Fatalf("first request not shown whole:\n%s", s)
	}
	d.keys("n")
	d.waitFor("request 2 of 2")
	d.keys("p")
	d.waitFor("request 1 of 2")
	d.keys("a")
	s = d.waitFor("request 1 of 1")
	if !strings.Contains(s, "curl example.com") {
		t.Fatalf("after approving the first, the second shows:\n%s", s)
	}
	d.keys("d")
	d.waitFor("feedback (optional)")
	d.typeText("no network")
	d.keys("Enter")
	d.waitFor("No requests are waiting")
	d.waitFor("Press any key")
	if a := teammateInbox(t, root, "alice"); len(a) != 1 || !strings.Contains(a[0].Text, `"subtype":"success"`) {
		t.Fatalf("alice: %+v", a)
	}
	// bob also holds the assignment of task 2; the answer comes last.
	if b := teammateInbox(t, root, "bob"); len(b) != 2 || !strings.Contains(b[1].Text, `"error":"no network"`) {
		t.Fatalf("bob: %+v", b)
	}
	// It waits for a key rather than vanishing.
	time.Sleep(300 * time.Millisecond)
	if strings.Contains(d.screen(), "DASH-EXIT") {
		t.Fatal("the popup closed by itself")
	}
	d.keys("x")
	d.waitFor("DASH-EXIT 0")
}

func TestReviewPopupWithoutATeamSaysSoAndWaits(t *testing.T) {
	root, _ := dashTeam(t)
	d := startDashPopup(t, root, func(*dash) {})
	d.waitFor("press any key to close")
	s := d.screen("-J")
	if !strings.Contains(s, "tmux set-option @paneteam-team NAME") {
		t.Fatalf("no hint how to name the team:\n%s", s)
	}
	time.Sleep(300 * time.Millisecond)
	if strings.Contains(d.screen(), "DASH-EXIT") {
		t.Fatalf("closed before a key was pressed:\n%s", d.screen())
	}
	d.keys("x")
	d.waitFor("DASH-EXIT 2")
}

// startDashPopup runs 'paneteam dashboard --requests' the way tmux runs a
// display-popup command: TMUX set to the server and session, no
// TMUX_PANE, no team on the command line; the team is the session's
// @paneteam-team, which setup sets.
func startDashPopup(t *testing.T, root string, setup func(*dash)) *dash {
	t.Helper()
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	pane, err := srv.Run(ctx, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "dash", "-x", "80", "-y", "24",
		"env", "-i", "PATH="+os.Getenv("PATH"), "HOME="+t.TempDir(), "TERM=screen", "PS1=$ ", "sh")
	if err != nil {
		t.Fatal(err)
	}
	d := &dash{t: t, srv: srv, pane: strings.TrimSpace(pane), root: root}
	setup(d)
	sess := strings.TrimPrefix(d.format("#{session_id}"), "$")
	tmuxVar := srv.Socket + "," + d.format("#{pid}") + "," + sess
	testutil.DashboardBinary(t)
	d.typeText("env PANETEAM_ROOT=" + root + " NO_COLOR=1 TMUX=" + tmuxVar + " " + testutil.Binary(t) + " dashboard --requests; echo DASH\"\"-EXIT $?")
	d.keys("Enter")
	return d
}

func TestDashboardHidesJumpsToAndStopsTeammates(t *testing.T) {
	w := newLCWorld(t)
	lead := testutil.FirstPane(t, w.srv)
	w.must(t, "team-create", "crew")
	alice := w.spawn(t, "crew", "alice", "reference")
	bob := w.spawn(t, "crew", "bob", "reference")
	var tmpdir string
	for _, kv := range w.vars {
		if v, ok := strings.CutPrefix(kv, "TMUX_TMPDIR="); ok {
			tmpdir = v
		}
	}
	d := startDashOn(t, w.srv, w.root, 80, 24, "--team crew --stop-timeout 20s", "NO_COLOR=1",
		"PANETEAM_TMUX_CONFIG=/dev/null", "TMUX_TMPDIR="+tmpdir)
	d.waitFor("MEMBERS (3)")
	paneOf := func(id, f string) string {
		out, err := w.srv.Run(context.Background(), "display-message", "-p", "-t", id, f)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	hidden := func() []string {
		_, cfg, err := team.Open(w.root, "crew")
		if err != nil {
			t.Fatal(err)
		}
		return cfg.HiddenPaneIDs
	}

	// h hides alice's pane and h again shows it, as paneteam hide/show do.
	d.keys("Down", "h")
	d.waitFor("alice's pane hidden")
	if paneOf(alice, "#{session_name}") != tmux.HiddenSession || fmt.Sprint(hidden()) != "["+alice+"]" {
		t.Fatalf("after h: alice in session %s, hiddenPaneIds %v", paneOf(alice, "#{session_name}"), hidden())
	}
	d.keys("h")
	d.waitFor("alice's pane shown")
	if paneOf(alice, "#{session_name}") == tmux.HiddenSession || len(hidden()) != 0 {
		t.Fatalf("after h again: alice in session %s, hiddenPaneIds %v", paneOf(alice, "#{session_name}"), hidden())
	}

	// g selects alice's pane in its window...
	if _, err := w.srv.Run(context.Background(), "select-pane", "-t", lead); err != nil {
		t.Fatal(err)
	}
	d.keys("g")
	d.waitFor("jumped to alice's pane")
	if paneOf(alice, "#{pane_active}") != "1" {
		t.Fatal("g did not select alice's pane")
	}
	// ...but not a pane that does not carry her @paneteam-agent.
	if _, err := w.srv.Run(context.Background(), "set-option", "-p", "-t", alice, tmux.AgentOption, "someone@else"); err != nil {
		t.Fatal(err)
	}
	w.srv.Run(context.Background(), "select-pane", "-t", lead)
	d.keys("g")
	d.waitFor("error: pane " + alice + " belongs to agent someone@else")
	if paneOf(alice, "#{pane_active}") != "0" {
		t.Fatal("g selected a pane paneteam did not make for alice")
	}

	// s asks first; y sends bob a shutdown request, and he leaves.
	d.keys("Down", "s")
	d.waitFor("stop bob?")
	d.keys("y")
	d.waitFor("bob stopped")
	if hasPane(w.srv, bob) || strings.Contains(members(t, w.root, "crew"), "bob") {
		t.Fatalf("bob after stop: panes %s, members %s", panes(w.srv), members(t, w.root, "crew"))
	}
}

// TestPopupBindingReviewsRequests runs the prefix+P binding the README
// gives, through a real tmux client on a terminal: the popup's command
// line names no team and holds no format; paneteam finds the team from
// the session's @paneteam-team, and the person answers with single keys.
func TestPopupBindingReviewsRequests(t *testing.T) {
	root, _ := dashTeam(t, permReq("perm-1767225600000-aaa1111", "alice", "npm test", time.Minute))
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	testutil.DashboardBinary(t)
	bindir := filepath.Dir(testutil.Binary(t))
	if filepath.Base(testutil.Binary(t)) != "paneteam" {
		// Race builds are named paneteam-race; the binding says paneteam.
		link := filepath.Join(t.TempDir(), "paneteam")
		if err := os.Symlink(testutil.Binary(t), link); err != nil {
			t.Fatal(err)
		}
		bindir = filepath.Dir(link)
	}
	for _, c := range [][]string{
		{"new-session", "-d", "-s", "work", "-x", "100", "-y", "30"},
		{"set-option", "-t", "work", "@paneteam-team", "crew"},
		{"set-environment", "-g", "PATH", bindir + ":" + os.Getenv("PATH")},
		{"set-environment", "-g", "PANETEAM_ROOT", root},
		{"set-environment", "-g", "NO_COLOR", "1"},
		// The line given for ~/.tmux.conf, as it is.
		{"bind-key", "P", "display-popup", "-E", "-w", "90%", "-h", "80%", "paneteam dashboard --requests"},
	} {
		if _, err := srv.Run(ctx, c...); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("tmux", "-S", srv.Socket, "attach-session", "-t", "work")
	cmd.Env = testutil.Env("TERM=screen")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ptmx.Close(); cmd.Process.Kill(); cmd.Wait() }()
	var screen testutil.Buffer
	go io.Copy(&screen, ptmx)
	testutil.Eventually(t, 10*time.Second, "a client attached", func() bool {
		out, _ := srv.Run(ctx, "list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
	ptmx.Write([]byte("\x02P")) // prefix (C-b), P
	testutil.Eventually(t, 10*time.Second, "the popup to show the request", func() bool {
		return strings.Contains(screen.String(), "request 1 of 1 waiting")
	})
	ptmx.Write([]byte("a"))
	testutil.Eventually(t, 10*time.Second, "alice to get the approval", func() bool {
		msgs := teammateInbox(t, root, "alice")
		return len(msgs) == 1 && strings.Contains(msgs[0].Text, `"subtype":"success"`)
	})
	testutil.Eventually(t, 10*time.Second, "the popup to say none is waiting", func() bool {
		return strings.Contains(screen.String(), "Press any key to close")
	})
	// The popup's paneteam: the one with this test's root (other tests
	// on the machine may run dashboards of their own).
	running := func() bool {
		out, _ := exec.Command("pgrep", "-f", "dashboard --requests").Output()
		for _, pid := range strings.Fields(string(out)) {
			env, _ := os.ReadFile("/proc/" + pid + "/environ")
			if strings.Contains(string(env), "PANETEAM_ROOT="+root+"\x00") {
				return true
			}
		}
		return false
	}
	if !running() {
		t.Fatal("the popup closed without waiting for a key")
	}
	ptmx.Write([]byte("x"))
	testutil.Eventually(t, 10*time.Second, "the popup to close", func() bool { return !running() })
}
