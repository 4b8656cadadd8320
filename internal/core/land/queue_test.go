package land

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// teammateAt is teammate with its commit dated at (Unix seconds), for
// the queue's oldest-first order.
func (f *fixture) teammateAt(name string, at string, files map[string]string) worktree.Record {
	f.t.Helper()
	r := f.teammate(name, files)
	cmd := exec.Command("git", "-C", r.Path, "commit", "-q", "--amend", "--no-edit")
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=@"+at+" +0000")
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("amend: %v\n%s", err, out)
	}
	return r
}

func (f *fixture) queue(test string, dry bool) *QueueResult {
	f.t.Helper()
	l, err := FindLead(context.Background(), f.repo)
	if err != nil {
		f.t.Fatal(err)
	}
	recs, _ := TeamRecords(f.recs, "t")
	res, err := Queue(context.Background(), QueueRequest{Lead: l, Records: recs, Store: f.recs, Test: test, DryRun: dry})
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func outcomes(res *QueueResult) string {
	var s []string
	for _, it := range res.Items {
		s = append(s, it.Name+":"+string(it.Outcome))
	}
	return strings.Join(s, " ")
}

func TestQueueLandsOldestFirstSkippingConflictsAndFailedTests(t *testing.T) {
	f := newFixture(t)
	f.teammateAt("carol", "3000", map[string]string{"a.txt": "one\nCAROL\nthree\n"})
	f.teammateAt("alice", "1000", map[string]string{"c.txt": "sea\n"})
	bob := f.teammateAt("bob", "2000", map[string]string{"a.txt": "one\nBOB\nthree\n"})
	dan := f.teammateAt("dan", "1500", map[string]string{"fail.txt": "x\n"})
	state := f.leadState()

	dry := f.queue("", true)
	if got := outcomes(dry); got != "alice:would land dan:would land bob:would land carol:conflict" {
		t.Errorf("dry run: %s", got)
	}
	if f.leadState() != state {
		t.Fatal("a dry run changed the lead")
	}

	res := f.queue("test ! -e fail.txt || { echo 'fail.txt must not exist'; exit 1; }", false)
	if got := outcomes(res); got != "alice:landed dan:tests failed bob:landed carol:conflict" {
		t.Errorf("queue: %s", got)
	}
	if !res.Moved || f.read("c.txt") != "sea\n" || f.read("a.txt") != "one\nBOB\nthree\n" || f.read("fail.txt") != "" {
		t.Errorf("the lead after the queue: moved %v, c.txt %q, a.txt %q, fail.txt %q", res.Moved, f.read("c.txt"), f.read("a.txt"), f.read("fail.txt"))
	}
	for _, it := range res.Items {
		if it.Name == "dan" && !strings.Contains(it.Output, "fail.txt must not exist") {
			t.Errorf("dan's failure keeps no output tail: %q", it.Output)
		}
		if it.Name == "carol" && (len(it.Files) != 1 || it.Files[0] != "a.txt") {
			t.Errorf("carol's conflict names %v", it.Files)
		}
		if (it.Outcome == Landed) != it.Removed {
			t.Errorf("%s %s, removed %v", it.Name, it.Outcome, it.Removed)
		}
	}
	if _, err := os.Stat(dan.Path); err != nil {
		t.Errorf("a skipped teammate's worktree went: %v", err)
	}
	if _, err := os.Stat(bob.Path); !os.IsNotExist(err) {
		t.Errorf("a landed teammate's worktree stays")
	}
	if out, err := exec.Command("sh", "-c", res.Undo).CombinedOutput(); err != nil {
		t.Fatalf("undo %q: %v\n%s", res.Undo, err, out)
	}
	if f.git(f.repo, "rev-parse", "HEAD") != res.Before || f.git(f.repo, "rev-parse", "refs/heads/"+bob.Branch) == "" {
		t.Errorf("undo did not put main and bob's branch back")
	}
}

// Something else moves the lead's branch while the queue runs (here, its
// test command): nothing of the queue's moves it.
func TestQueueLeavesABranchSomethingElseMoved(t *testing.T) {
	f := newFixture(t)
	alice := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	res := f.queue("git -C "+f.repo+" commit -q --allow-empty -m sneaky", false)
	var me *MovedError
	if !errors.As(res.Err, &me) || res.Moved {
		t.Fatalf("queue with the branch moved under it: err %v, moved %v", res.Err, res.Moved)
	}
	if msg := f.git(f.repo, "log", "-1", "--format=%s"); msg != "sneaky" || f.read("c.txt") != "" {
		t.Errorf("HEAD is %q, c.txt %q: the queue moved a branch something else had moved", msg, f.read("c.txt"))
	}
	if _, err := os.Stat(alice.Path); err != nil || outcomes(res) != "alice:not moved" {
		t.Errorf("alice: %s, worktree %v", outcomes(res), err)
	}
}

// A teammate whose change is on the lead's branch already as one
// squashed commit (no commit of its own matches it for git cherry) is
// "nothing to land": the merge the queue makes of it changes no file,
// and is taken back out, so the lead's branch does not move.
func TestQueueFindsASquashedCopyNothingToLand(t *testing.T) {
	f := newFixture(t)
	alice := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	f.commit(alice.Path, "more", map[string]string{"c.txt": "sea\nmore\n"})
	l, _ := FindLead(context.Background(), f.repo)
	if _, err := Land(context.Background(), Request{Lead: l, Record: alice, Records: f.recs, Mode: Squash, KeepWorktree: true}); err != nil {
		t.Fatal(err)
	}
	state := f.leadState()
	res := f.queue("", false)
	if got := outcomes(res); got != "alice:nothing to land" || res.Moved {
		t.Errorf("queue over a squashed copy: %s, moved %v", got, res.Moved)
	}
	if got := f.leadState(); got != state {
		t.Errorf("the queue moved the lead for nothing:\nbefore %s\nafter  %s", state, got)
	}
}

// The landed teammates' worktrees go together at the end of the queue,
// each checked as it is then: one that got a new file after the queue
// read it (alice), and one whose folder became a link to one of the
// person's own worktrees (bob), both during the queue (its test command
// does it), are kept, saying why; only carol's goes.
func TestQueueKeepsALandedWorktreeThatChangedBeforeItsRemoval(t *testing.T) {
	f := newFixture(t)
	alice := f.teammateAt("alice", "1000", map[string]string{"c.txt": "sea\n"})
	bob := f.teammateAt("bob", "2000", map[string]string{"d.txt": "dee\n"})
	carol := f.teammateAt("carol", "3000", map[string]string{"e.txt": "ee\n"})
	own := filepath.Join(t.TempDir(), "feature")
	f.git(f.repo, "worktree", "add", "-q", "-b", "feature", own)
	f.write(own, "notes", "the person's own\n")
	test := fmt.Sprintf("echo late > %s/late.txt && { test -L %s || { mv %s %s.real && ln -s %s %s; }; }",
		alice.Path, bob.Path, bob.Path, bob.Path, own, bob.Path)
	res := f.queue(test, false)
	if got := outcomes(res); got != "alice:landed bob:landed carol:landed" || !res.Moved {
		t.Fatalf("queue: %s, moved %v (%v)", got, res.Moved, res.Err)
	}
	want := map[string]string{"alice": "1 uncommitted change(s) (late.txt)", "bob": "symbolic link"}
	for _, it := range res.Items {
		if it.Name == "carol" {
			if !it.Removed || it.Kept != "" {
				t.Errorf("carol: removed %v, kept %q", it.Removed, it.Kept)
			}
			continue
		}
		if it.Removed || !strings.Contains(it.Kept, want[it.Name]) {
			t.Errorf("%s: removed %v, kept %q, want kept saying %q", it.Name, it.Removed, it.Kept, want[it.Name])
		}
		if f.git(f.repo, "branch", "--list", it.Branch) == "" {
			t.Errorf("%s's branch went", it.Name)
		}
		if r, err := f.recs.Read(it.Record.Path); err != nil || r == nil {
			t.Errorf("%s's record was forgotten: %v", it.Name, err)
		}
	}
	for _, p := range []string{filepath.Join(alice.Path, "late.txt"), filepath.Join(own, "notes"), filepath.Join(bob.Path+".real", "d.txt")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was lost: %v", p, err)
		}
	}
	if _, err := os.Lstat(carol.Path); !os.IsNotExist(err) || f.git(f.repo, "branch", "--list", carol.Branch) != "" {
		t.Errorf("carol's worktree or branch stays: %v", err)
	}
}

// land --all keeps each landed teammate's commits under
// refs/paneteam/landed/TEAM/NAME as land does, so a squash's originals
// stay reachable once the branch goes.
func TestQueueKeepsEachLandedTeammatesCommits(t *testing.T) {
	f := newFixture(t)
	alice := f.teammateAt("alice", "1000", map[string]string{"c.txt": "sea\n"})
	bob := f.teammateAt("bob", "2000", map[string]string{"d.txt": "dee\n"})
	tips := map[string]string{"alice": f.git(alice.Path, "rev-parse", "HEAD"), "bob": f.git(bob.Path, "rev-parse", "HEAD")}
	l, err := FindLead(context.Background(), f.repo)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := TeamRecords(f.recs, "t")
	res, err := Queue(context.Background(), QueueRequest{Lead: l, Records: recs, Store: f.recs, Mode: Squash})
	if err != nil || res.Err != nil || !res.Moved {
		t.Fatalf("land --all --squash: %v %v, moved %v, %s", err, res.Err, res.Moved, outcomes(res))
	}
	for name, tip := range tips {
		if _, err := exec.Command("git", "-C", f.repo, "rev-parse", "--verify", "-q", "refs/heads/paneteam/t/"+name).Output(); err == nil {
			t.Fatalf("%s's branch was not let go; the test needs it gone", name)
		}
		if got, _ := exec.Command("git", "-C", f.repo, "rev-parse", "--verify", "-q", "refs/paneteam/landed/t/"+name).Output(); strings.TrimSpace(string(got)) != tip {
			t.Errorf("refs/paneteam/landed/t/%s holds %q, want %s's squashed original %s", name, strings.TrimSpace(string(got)), name, tip)
		}
	}
}
