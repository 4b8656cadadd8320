package dashboard

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/paneteam/paneteam/internal/core/land"
)

func workFake() *fake {
	return &fake{snap: team3(),
		work: Work{Onto: "main", Entries: []land.Entry{
			{Name: "alice", Branch: "paneteam/crew/alice", Path: "/w/alice", Ahead: 2, Added: 3, Removed: 1, Clean: true, ConflictsWith: []string{"bob"}, ConflictFiles: []string{"a.go"}},
			{Name: "bob", Branch: "paneteam/crew/bob", Path: "/w/bob", Ahead: 1, Uncommitted: 1, Added: 1, Removed: 1, Clean: false, LeadConflicts: []string{"a.go"}, ConflictsWith: []string{"alice"}, ConflictFiles: []string{"a.go"}},
		}},
		diff: land.Diff{Name: "alice", Branch: "paneteam/crew/alice", Base: "0123456789abcdef",
			Committed:   "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -7,3 +7,3 @@ func f() {\n \tkeep()\n-\told()\n+\tnew() // \x1b]0;owned\x07\x1b[2J\n \tdone()\n",
			Uncommitted: "diff --git a/b.go b/b.go\n--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-x\n+y\n"},
	}
}

// The review view's readings and land run as tea.Cmds: a key returns
// them to Bubble Tea and the screen's loop does not wait for git.
func TestReviewReadsOffTheScreensLoop(t *testing.T) {
	f := workFake()
	m := start(t, f, Options{})
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'r', Text: "r"})
	if cmd == nil || strings.Contains(fmt.Sprint(f.calls), "review") {
		t.Fatalf("r read the review on the screen's loop: %v", f.calls)
	}
	if !strings.Contains(m.screen(), "reading each teammate's work") {
		t.Errorf("no word that it is reading:\n%s", m.screen())
	}
	drive(m, cmd)
	s := m.screen()
	for _, want := range []string{"TEAMMATES WITH WORK (2)", "LANDS ON main", "cleanly; conflicts with bob", "conflicts: a.go; conflicts w", "conflicts with: bob in a.go"} {
		if !strings.Contains(s, want) {
			t.Errorf("review list lacks %q:\n%s", want, s)
		}
	}
}

func TestReviewDiffShowsTheTeammatesTextVisiblyAndColoured(t *testing.T) {
	f := workFake()
	m := start(t, f, Options{Color: true})
	press(m, "r", "enter")
	s := m.screen()
	if strings.Contains(s, "\x07") || strings.Contains(s, "\x1b]") || strings.Contains(s, "\x1b[2J") {
		t.Fatalf("an escape sequence in a diff line reached the screen raw:\n%q", s)
	}
	if !strings.Contains(s, `\x1b]0;owned\x07\x1b[2J`) {
		t.Errorf("the escape sequence is not shown as text:\n%s", s)
	}
	if !strings.Contains(s, "\x1b[31m-    old()\x1b[0m") || !strings.Contains(s, "\x1b[36m@@ -7,3 +7,3 @@ func f() {\x1b[0m") {
		t.Errorf("removed and hunk lines not coloured by the dashboard's styles (tabs expanded):\n%q", s)
	}
	if !strings.Contains(s, "# uncommitted in its worktree") || !strings.Contains(s, "# committed on paneteam/crew/alice since 0123456789ab") {
		t.Errorf("committed and uncommitted work not marked apart:\n%s", s)
	}
}

func TestReviewCommentNamesTheNewSideLine(t *testing.T) {
	f := workFake()
	m := start(t, f, Options{})
	press(m, "r", "enter", "c")
	if !strings.Contains(m.screen(), "a header line cannot be commented on") {
		t.Errorf("a header line took a comment:\n%s", m.screen())
	}
	press(m, "down", "down", "down", "down", "down", "down", "c") // -	old()
	if !strings.Contains(m.screen(), "a removed line cannot be commented on") {
		t.Errorf("a removed line took a comment:\n%s", m.screen())
	}
	press(m, "down", "down", "c") // \tdone(), new side line 9
	if !strings.Contains(m.screen(), "comment to alice on a.go:9:") {
		t.Fatalf("no comment input for a.go:9:\n%s", m.screen())
	}
	press(m, "w", "h", "y", "?", "enter")
	if got := f.calls[len(f.calls)-1]; got != "comment alice a.go:9 why?" {
		t.Errorf("calls %v", f.calls)
	}
	if !strings.Contains(m.screen(), "comment on a.go:9 sent to alice") || m.mode != modeDiff {
		t.Errorf("after sending:\n%s", m.screen())
	}
	press(m, "down", "down", "down", "down", "down", "down", "down", "down", "c") // +y of the uncommitted b.go
	if !strings.Contains(m.screen(), "comment to alice on b.go:1:") {
		t.Fatalf("no comment input for b.go:1:\n%s", m.screen())
	}
	press(m, "x", "esc")
	if strings.Contains(fmt.Sprint(f.calls), "b.go") || m.mode != modeDiff {
		t.Errorf("esc sent the comment: %v", f.calls)
	}
}

func TestReviewLandAsksSaysHowAndLandsOnYesOnly(t *testing.T) {
	f := workFake()
	m := start(t, f, Options{})
	press(m, "r", "l")
	s := strings.ReplaceAll(m.screen(), "\n", "")
	for _, want := range []string{"land alice onto main by merge", "/w/alice", "paneteam/crew/alice go", "y: land"} {
		if !strings.Contains(s, want) {
			t.Errorf("the confirmation does not say %q:\n%s", want, m.screen())
		}
	}
	press(m, "n")
	press(m, "l", "esc")
	if strings.Contains(fmt.Sprint(f.calls), "land") {
		t.Fatalf("n or esc landed: %v", f.calls)
	}
	press(m, "l", "y")
	if !strings.Contains(fmt.Sprint(f.calls), "land alice") || !strings.Contains(m.screen(), "undo: git reset") {
		t.Fatalf("y did not land or the undo is not shown: %v\n%s", f.calls, m.screen())
	}
	f.landErr = errors.New("bob's branch conflicts in a.go\nask bob")
	press(m, "down", "l")
	if !strings.Contains(strings.ReplaceAll(m.screen(), "\n", ""), "It does not land cleanly: a.go conflict") {
		t.Errorf("the confirmation does not warn of the conflict:\n%s", m.screen())
	}
	press(m, "y")
	s = m.screen()
	if !strings.Contains(s, "bob's branch conflicts in a.go") || !strings.Contains(s, "ask bob") || !strings.Contains(s, "bob was not landed") {
		t.Errorf("the refusal is not shown whole:\n%s", s)
	}
}

// A committed line of a file changed again since is quoted from the
// file as it is now: its number moves by the uncommitted lines above
// it, and a line changed since takes no comment.
func TestReviewCommentFollowsACommittedLineToWhereItIsNow(t *testing.T) {
	f := workFake()
	f.diff.Uncommitted = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1,2 @@\n x\n+inserted\n@@ -9 +10 @@\n-\tdone()\n+\tfinish()\n"
	m := start(t, f, Options{})
	press(m, "r", "enter", "down", "down", "down", "down", "down", "c") // the committed \tkeep(), line 7
	if !strings.Contains(m.screen(), "comment to alice on a.go:8:") {
		t.Fatalf("the committed line 7 is not commented on as line 8, where it is now:\n%s", m.screen())
	}
	press(m, "esc", "down", "down", "down", "c") // the committed \tdone(), replaced since
	if !strings.Contains(m.screen(), "has been changed since") || m.mode != modeDiff {
		t.Fatalf("a committed line changed since took a comment:\n%s", m.screen())
	}
}

// q or Ctrl-C while a land runs does not quit: the land would end with
// no outcome shown, perhaps half way through letting the worktree go.
// Once it is done, q quits.
func TestReviewQuitWaitsForALandInFlight(t *testing.T) {
	f := workFake()
	m := start(t, f, Options{})
	press(m, "r", "l")
	_, land := m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if land == nil {
		t.Fatal("y started no land")
	}
	for _, k := range []tea.KeyPressMsg{{Code: 'q', Text: "q"}, {Code: 'c', Mod: tea.ModCtrl}} {
		_, cmd := m.Update(k)
		if drive(m, cmd) || m.quitting {
			t.Fatalf("%s quit while the land was in flight", k.String())
		}
		if !strings.Contains(m.screen(), "landing: wait") {
			t.Errorf("%s while landing is not answered with \"landing: wait\":\n%s", k.String(), m.screen())
		}
	}
	drive(m, land)
	if !strings.Contains(m.screen(), "undo: git reset") {
		t.Fatalf("the land's outcome is not shown:\n%s", m.screen())
	}
	if !press(m, "q") {
		t.Error("q does not quit once the land is done")
	}
}

// A land's confirmation names a few conflicting files, not thousands.
func TestReviewLandConfirmationListsAFewConflicts(t *testing.T) {
	f := workFake()
	var files []string
	for i := range 300 {
		files = append(files, fmt.Sprintf("f%03d.go", i))
	}
	f.work.Entries[1].LeadConflicts = files
	m := start(t, f, Options{})
	press(m, "r", "down", "l")
	s := strings.ReplaceAll(m.screen(), "\n", "")
	if want := fmt.Sprintf("and %d more conflict", 300-land.ListedFiles); !strings.Contains(s, want) || strings.Contains(s, "f299.go") {
		t.Errorf("the confirmation does not cut the files at %d (%q):\n%s", land.ListedFiles, want, m.screen())
	}
}
