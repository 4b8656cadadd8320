package team

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
)

func newTaskTeam(t *testing.T) (Team, *TaskList) {
	t.Helper()
	tm, _, err := Create(testutil.Root(t), "tasks", CreateOptions{Cwd: "/src"})
	if err != nil {
		t.Fatal(err)
	}
	return tm, tm.Tasks(lockfile.Options{})
}

func mustCreate(t *testing.T, l *TaskList, nt NewTask) *Task {
	t.Helper()
	task, err := l.Create(context.Background(), nt)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func mustGet(t *testing.T, l *TaskList, id string) *Task {
	t.Helper()
	task, err := l.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestReleaseTasksFreesOnlyTheLeaversUnfinishedTasks(t *testing.T) {
	ctx := context.Background()
	tm, l := newTaskTeam(t)
	mine := mustCreate(t, l, NewTask{Subject: "a", Owner: "alice"})
	byAgentID := mustCreate(t, l, NewTask{Subject: "b", Owner: "alice@" + tm.Name})
	done := mustCreate(t, l, NewTask{Subject: "c", Owner: "alice"})
	if _, err := l.Update(ctx, done.ID, func(t *Task) error { t.Status = StatusCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	other := mustCreate(t, l, NewTask{Subject: "d", Owner: "bob"})

	released, err := ReleaseTasks(ctx, tm, lockfile.Options{}, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{mine.ID, byAgentID.ID}; !reflect.DeepEqual(released, want) {
		t.Fatalf("released %v, want %v", released, want)
	}
	for _, id := range released {
		got := mustGet(t, l, id)
		if got.Owner != "" || got.Status != StatusPending {
			t.Errorf("task %s after release: owner %q status %q, want no owner, pending", id, got.Owner, got.Status)
		}
		raw, _ := os.ReadFile(l.Path(id))
		if strings.Contains(string(raw), `"owner"`) {
			t.Errorf("task %s file still has an owner key:\n%s", id, raw)
		}
	}
	if got := mustGet(t, l, done.ID); got.Owner != "alice" || got.Status != StatusCompleted {
		t.Errorf("completed task changed: owner %q status %q", got.Owner, got.Status)
	}
	if got := mustGet(t, l, other.ID); got.Owner != "bob" {
		t.Errorf("bob's task changed owner to %q", got.Owner)
	}
	again, err := ReleaseTasks(ctx, tm, lockfile.Options{}, "alice")
	if err != nil || len(again) != 0 {
		t.Fatalf("second release: %v %v, want nothing released", again, err)
	}
}

func TestReleaseTasksWithoutTaskFolder(t *testing.T) {
	tm := Team{Root: t.TempDir(), Name: "gone"}
	released, err := ReleaseTasks(context.Background(), tm, lockfile.Options{}, "alice")
	if err != nil || released != nil {
		t.Fatalf("got %v, %v; want nothing and no error", released, err)
	}
}

func TestDeletedIDsAreNotReused(t *testing.T) {
	ctx := context.Background()
	_, l := newTaskTeam(t)
	for i := 0; i < 3; i++ {
		mustCreate(t, l, NewTask{Subject: "t"})
	}
	if err := l.Delete(ctx, "3"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, "2"); err != nil {
		t.Fatal(err)
	}
	mark, err := os.ReadFile(filepath.Join(l.Dir, ".highwatermark"))
	if err != nil || string(mark) != "3" {
		t.Fatalf(".highwatermark = %q, %v; want \"3\" with no newline", mark, err)
	}
	if next := mustCreate(t, l, NewTask{Subject: "t"}); next.ID != "4" {
		t.Fatalf("next id after deleting 2 and 3 is %s, want 4", next.ID)
	}
	if _, err := l.Get("3"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("get deleted task: %v, want ErrTaskNotFound", err)
	}
	if err := l.Delete(ctx, "3"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("delete twice: %v, want ErrTaskNotFound", err)
	}
	st, err := os.Stat(filepath.Join(l.Dir, ".lock"))
	if err != nil || !st.Mode().IsRegular() || st.Size() != 0 {
		t.Fatalf(".lock must stay an empty regular file: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(l.Dir, ".lock.lock")); !os.IsNotExist(err) {
		t.Fatalf("list lock directory left behind: %v", err)
	}
}

func TestClaimRefusesOwnedCompletedAndBlocked(t *testing.T) {
	ctx := context.Background()
	_, l := newTaskTeam(t)
	first := mustCreate(t, l, NewTask{Subject: "first"})
	second := mustCreate(t, l, NewTask{Subject: "second", BlockedBy: []string{first.ID}})
	if got := mustGet(t, l, first.ID); !reflect.DeepEqual(got.Blocks, []string{second.ID}) {
		t.Fatalf("blocker's blocks = %v, want [%s]", got.Blocks, second.ID)
	}

	var ce *ClaimError
	if _, err := l.Claim(ctx, second.ID, "bob"); !errors.As(err, &ce) || ce.Reason != ClaimBlocked ||
		!reflect.DeepEqual(ce.Blockers, []string{first.ID}) {
		t.Fatalf("claim of a blocked task: %v, want blocked by %s", err, first.ID)
	}
	if got := mustGet(t, l, second.ID); got.Owner != "" || got.Status != StatusPending {
		t.Fatalf("refused claim changed the task: %+v", got)
	}
	got, err := l.Claim(ctx, first.ID, "alice")
	if err != nil || got.Owner != "alice" || got.Status != StatusInProgress {
		t.Fatalf("claim: %+v, %v", got, err)
	}
	if _, err := l.Claim(ctx, first.ID, "alice"); err != nil {
		t.Fatalf("owner claiming again: %v", err)
	}
	_, err = l.Claim(ctx, first.ID, "bob")
	if !errors.As(err, &ce) || ce.Reason != ClaimOwned || ce.Owner != "alice" {
		t.Fatalf("claim of an owned task: %v, want already claimed by alice", err)
	}
	if !strings.Contains(err.Error(), "already claimed by alice") {
		t.Errorf("refusal does not say who has it: %v", err)
	}
	if _, err := l.Update(ctx, first.ID, func(t *Task) error { t.Status = StatusCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, first.ID, "alice"); !errors.As(err, &ce) || ce.Reason != ClaimCompleted {
		t.Fatalf("claim of a completed task: %v", err)
	}
	// The blocker is completed: the second task is free now.
	if _, err := l.Claim(ctx, second.ID, "bob"); err != nil {
		t.Fatalf("claim after the blocker completed: %v", err)
	}
}

// TestClaimKnowsAnOwnerByItsAgentID: Claude Code may record the owner as
// the member's agent id (name@team); that member claiming again is its own
// task, not someone else's.
func TestClaimKnowsAnOwnerByItsAgentID(t *testing.T) {
	ctx := context.Background()
	tm, l := newTaskTeam(t)
	task := mustCreate(t, l, NewTask{Subject: "a", Owner: AgentID("alice", tm.Name)})
	before, _ := os.ReadFile(l.Path(task.ID))
	got, err := l.Claim(ctx, task.ID, "alice")
	if err != nil || got.Status != StatusInProgress {
		t.Fatalf("alice claiming her own task (owner %s): %+v, %v", task.Owner, got, err)
	}
	if after, _ := os.ReadFile(l.Path(task.ID)); !bytes.Equal(before, after) {
		t.Fatalf("claiming one's own task rewrote it:\n%s", after)
	}
	var ce *ClaimError
	if _, err := l.Claim(ctx, task.ID, "bob"); !errors.As(err, &ce) || ce.Reason != ClaimOwned {
		t.Fatalf("bob claiming alice's task: %v, want already claimed", err)
	}
}

func TestCreateAndAddBlockedByRefuseBadDependencies(t *testing.T) {
	ctx := context.Background()
	_, l := newTaskTeam(t)
	a := mustCreate(t, l, NewTask{Subject: "a"})
	b := mustCreate(t, l, NewTask{Subject: "b", BlockedBy: []string{a.ID}})
	if _, err := l.Create(ctx, NewTask{Subject: "c", BlockedBy: []string{"9"}}); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("create blocked by a missing task: %v", err)
	}
	if _, err := l.Create(ctx, NewTask{Subject: "c", BlockedBy: []string{"../1"}}); err == nil {
		t.Fatal("create accepted blocker ../1")
	}
	if _, err := l.AddBlockedBy(ctx, a.ID, []string{b.ID}); err == nil || !strings.Contains(err.Error(), "neither could ever start") {
		t.Fatalf("cycle accepted or unclear: %v", err)
	}
	if _, err := l.AddBlockedBy(ctx, a.ID, []string{a.ID}); err == nil {
		t.Fatal("a task was made to wait for itself")
	}
	c := mustCreate(t, l, NewTask{Subject: "c"})
	got, err := l.AddBlockedBy(ctx, b.ID, []string{c.ID, a.ID})
	if err != nil || !reflect.DeepEqual(got.BlockedBy, []string{a.ID, c.ID}) {
		t.Fatalf("add blocked-by: %v %v", got, err)
	}
	if cc := mustGet(t, l, c.ID); !reflect.DeepEqual(cc.Blocks, []string{b.ID}) {
		t.Fatalf("new blocker's blocks = %v", cc.Blocks)
	}
	if files, _ := filepath.Glob(filepath.Join(l.Dir, "*.json")); len(files) != 3 {
		t.Fatalf("refused creates left files: %v", files)
	}
}

func TestMalformedTaskFilesAreSkippedAndNeverRewritten(t *testing.T) {
	ctx := context.Background()
	tm, l := newTaskTeam(t)
	good := mustCreate(t, l, NewTask{Subject: "good", Owner: "alice"})
	bad := map[string]string{
		"7.json":     `{"id": "7", "subject": "half`,
		"8.json":     `{"id":"8","subject":"s","description":"","status":"wip","owner":"alice","blocks":[],"blockedBy":[]}`,
		"notes.json": `{}`,
		// A field of the wrong type, as a careless tool or another release
		// might write it.
		"6.json": `{"id":"6","subject":"s","description":"","status":"pending","owner":42,"blocks":[],"blockedBy":[]}`,
	}
	for name, text := range bad {
		if err := os.WriteFile(filepath.Join(l.Dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tasks, skipped, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].ID != good.ID {
		t.Fatalf("listed %v, want only task %s", tasks, good.ID)
	}
	if len(skipped) != 4 {
		t.Fatalf("skipped %v, want the 4 bad files", skipped)
	}
	for _, s := range skipped {
		if !strings.Contains(s.Error(), s.Path) {
			t.Errorf("warning does not name the file: %v", s)
		}
		if filepath.Base(s.Path) == "6.json" && !strings.Contains(s.Error(), `"owner" holds a number where a string goes`) {
			t.Errorf("warning does not say which field is wrong: %v", s)
		}
	}
	if _, err := ReleaseTasks(ctx, tm, lockfile.Options{}, "alice"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"6", "8"} {
		if _, err := l.Update(ctx, id, func(t *Task) error { t.Status = StatusPending; return nil }); err == nil {
			t.Fatalf("update of unreadable task %s succeeded", id)
		}
	}
	// The next id counts file names, parsable or not: nothing is overwritten.
	if next := mustCreate(t, l, NewTask{Subject: "next"}); next.ID != "9" {
		t.Fatalf("next id %s, want 9", next.ID)
	}
	for name, text := range bad {
		if b, _ := os.ReadFile(filepath.Join(l.Dir, name)); string(b) != text {
			t.Errorf("%s was rewritten:\n%s", name, b)
		}
	}
}
