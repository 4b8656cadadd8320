package team

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/testutil"
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
