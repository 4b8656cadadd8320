package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// reviewTeam is team crew (alice, bob) in a repository on main with
// a.txt, each teammate with a worktree paneteam recorded: alice changes
// a.txt's second line and adds notes.txt of 50 lines, bob changes the
// same line, so the two conflict. It returns the repository, the state
// folder, the records and the environment the dashboard needs.
func reviewTeam(t *testing.T) (root, repo string, recs map[string]worktree.Record, extra []string) {
	t.Helper()
	root, _ = reqTeam(t)
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = Person\n\temail = person@example.com\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo = t.TempDir()
	gitT(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644)
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "first")
	state := t.TempDir()
	recs = map[string]worktree.Record{}
	for _, n := range []string{"alice", "bob"} {
		wt, err := worktree.Create(context.Background(), repo, "crew", n)
		if err != nil {
			t.Fatal(err)
		}
		r := worktree.Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base, Root: root, Team: "crew", Member: n}
		if err := worktree.OpenRecords(state).Write(r); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(wt.Path, "a.txt"), []byte("one\n"+strings.ToUpper(n)+"\nthree\nfour\nfive\n"), 0o644)
		if n == "alice" {
			var notes strings.Builder
			for i := 1; i <= 50; i++ {
				fmt.Fprintf(&notes, "note %02d\n", i)
			}
			os.WriteFile(filepath.Join(wt.Path, "notes.txt"), []byte(notes.String()), 0o644)
			gitT(t, wt.Path, "add", ".")
		}
		gitT(t, wt.Path, "commit", "-q", "-am", n+" changes line two")
		recs[n] = r
	}
	return root, repo, recs, []string{"NO_COLOR=1", "PANETEAM_STATE_DIR=" + state, "GIT_CONFIG_GLOBAL=" + cfg, "GIT_CONFIG_NOSYSTEM=1"}
}

// cursorRow is the diff line under the cursor, as the screen shows it.
func cursorRow(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(l, "> "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// downTo moves the diff's cursor down until it is on the line want.
func (d *dash) downTo(want string) {
	d.t.Helper()
	for i := 0; i < 200; i++ {
		at := cursorRow(d.screen())
		if at == want {
			return
		}
		d.keys("Down")
		testutil.Eventually(d.t, 10*time.Second, "the cursor never moved from "+at, func() error {
			if now := cursorRow(d.screen()); now == at {
				return fmt.Errorf("still on %q", now)
			}
			return nil
		})
	}
	d.t.Fatalf("the cursor never reached %q:\n%s", want, d.screen())
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

// The review view as a person uses it, in a real tmux: the teammates
// with their counts and conflict, alice's diff scrolled, a comment on the
// line under the cursor reaching her inbox, a land confirmed (n and Esc
// change nothing, y lands and shows the undo), then bob's land refused
// with the file, in the command line's words.
func TestDashboardReviewCommentAndLand(t *testing.T) {
	root, repo, recs, extra := reviewTeam(t)
	d := startDashIn(t, testutil.TmuxServer(t), repo, root, 80, 24, "--team crew", extra...)
	d.waitFor("REQUESTS")
	d.keys("r")
	s := d.waitFor("TEAMMATES WITH WORK (2)")
	d.checkFits(80, 24)
	for _, re := range []string{
		`(?m)^> alice\s+1\s+0\s+\+51 -1\s+cleanly; conflicts with bob`,
		`(?m)^  bob\s+1\s+0\s+\+1 -1\s+cleanly; conflicts with alice`,
		`conflicts with: bob in a\.txt`,
	} {
		if !regexp.MustCompile(re).MatchString(s) {
			t.Errorf("the review list does not match %s:\n%s", re, s)
		}
	}

	// Enter: alice's diff, from its first line; a page down scrolls.
	d.keys("Enter")
	s = d.waitFor("# committed on paneteam/crew/alice")
	if !strings.Contains(s, "diff --git a/a.txt b/a.txt") || !strings.Contains(s, "+ALICE") || cursorRow(s) != "# committed on paneteam/crew/alice since "+recs["alice"].Base[:12] {
		t.Fatalf("the diff does not start at its first line:\n%s", s)
	}
	d.checkFits(80, 24)
	d.keys("NPage")
	s = d.waitGone("diff --git a/a.txt")
	if !strings.Contains(s, "+note 2") {
		t.Errorf("a page down does not show the later lines:\n%s", s)
	}

	// A header and a removed line take no comment.
	d.keys("Home")
	d.waitFor("diff --git a/a.txt")
	d.keys("c")
	d.waitFor("a header line cannot be commented on")
	d.downTo("-two")
	d.keys("c")
	d.waitFor("a removed line cannot be commented on")

	// c on +note 40: the file and new-side line from the hunk header.
	d.downTo("+note 40")
	d.keys("c")
	d.waitFor("comment to alice on notes.txt:40:")
	d.typeText("say why forty")
	d.keys("Enter")
	d.waitFor("comment on notes.txt:40 sent to alice")
	tm := team.Team{Root: root, Name: "crew"}
	var got []string
	for _, m := range inboxOf(t, tm, "alice") {
		if strings.Contains(m.Text, "Review of your work") {
			got = append(got, m.Text)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "notes.txt:40: say why forty") || !strings.Contains(got[0], ">   40 | note 40") || !strings.Contains(got[0], "     39 | note 39") {
		t.Fatalf("alice's inbox holds %d review message(s), want one quoting notes.txt:40 and the comment: %q", len(got), got)
	}

	// l asks first; n and Esc change nothing.
	before := gitT(t, repo, "rev-parse", "HEAD")
	tip := gitT(t, repo, "rev-parse", recs["alice"].Branch)
	d.keys("l")
	s = d.waitFor("y: land")
	for _, want := range []string{"land alice onto main by merge (a merge commit", "Then its worktree " + recs["alice"].Path + " and its branch paneteam/crew/alice go", "the undo command is shown after"} {
		if !strings.Contains(squeeze(s), squeeze(want)) {
			t.Errorf("the confirmation does not say %q:\n%s", want, s)
		}
	}
	d.keys("n")
	d.waitFor("not landed: nothing changed")
	d.keys("l")
	d.waitFor("y: land")
	d.keys("Escape")
	d.waitGone("y: land")
	if head := gitT(t, repo, "rev-parse", "HEAD"); head != before {
		t.Fatalf("n or Esc moved main: %s, was %s", head, before)
	}
	if _, err := os.Stat(recs["alice"].Path); err != nil {
		t.Fatalf("n or Esc removed alice's worktree: %v", err)
	}

	// y lands: main has her change, her worktree and branch are gone,
	// and the undo is on screen.
	d.keys("l")
	d.waitFor("y: land")
	d.keys("y")
	s = d.waitFor("TEAMMATES WITH WORK (1)")
	s = d.waitFor("undo: git -C")
	if b := gitT(t, repo, "show", "HEAD:a.txt"); !strings.Contains(b, "ALICE") {
		t.Errorf("main's a.txt after the land: %q", b)
	}
	if gitT(t, repo, "show", "HEAD:notes.txt") == "" {
		t.Error("main has no notes.txt after the land")
	}
	if _, err := os.Stat(recs["alice"].Path); !os.IsNotExist(err) {
		t.Errorf("alice's worktree is still there after the land: %v", err)
	}
	undo := fmt.Sprintf("undo: git -C %s reset --keep %s && git -C %s branch paneteam/crew/alice %s", repo, before, repo, tip)
	if !strings.Contains(squeeze(s), squeeze(undo)) || !strings.Contains(s, "landed alice (merge) on main") {
		t.Errorf("the screen does not show the land and its undo %q:\n%s", undo, s)
	}
	if !regexp.MustCompile(`(?m)^> bob\s+1\s+0\s+\+1 -1\s+conflicts: a\.txt`).MatchString(s) {
		t.Errorf("bob's row does not say it now conflicts on a.txt:\n%s", s)
	}

	// bob's land is refused with the file, as 'paneteam land' words it.
	landed := gitT(t, repo, "rev-parse", "HEAD")
	d.keys("l")
	s = d.waitFor("y: land")
	if !strings.Contains(squeeze(s), squeeze("It does not land cleanly: a.txt conflict")) {
		t.Errorf("the confirmation does not warn of the conflict:\n%s", s)
	}
	d.keys("y")
	s = d.waitFor("bob was not landed")
	for _, want := range []string{"bob's branch paneteam/crew/bob conflicts with main in 1 file(s): a.txt",
		"ask bob to bring its branch up to date with main and resolve them: paneteam land --team crew bob --ask"} {
		if !strings.Contains(squeeze(s), squeeze(want)) {
			t.Errorf("the refusal does not say %q:\n%s", want, s)
		}
	}
	if head := gitT(t, repo, "rev-parse", "HEAD"); head != landed {
		t.Errorf("a refused land moved main")
	}
	if _, err := os.Stat(recs["bob"].Path); err != nil {
		t.Errorf("a refused land removed bob's worktree: %v", err)
	}
	d.checkFits(80, 24)
	d.keys("q")
	d.waitFor("DASH-EXIT 0")
}
