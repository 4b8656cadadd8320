package team

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
)

// ackedIDs lists the ids the Claude task writer acknowledged, "1,2".
func ackedIDs(acks []testutil.TaskAck) string {
	var ids []string
	for _, a := range acks {
		ids = append(ids, a.ID)
	}
	return strings.Join(ids, ",")
}

// TestTaskFileBytesMatchClaudeCode creates the same task with Claude
// Code's algorithm (Node) and with paneteam, and compares the files byte
// for byte; then claims it on both sides.
func TestTaskFileBytesMatchClaudeCode(t *testing.T) {
	const desc, active = "Read api/<pkg> & list \"problems\"\n- one\n- two", "Reviewing the API"
	_, l := newTaskTeam(t)
	task := mustCreate(t, l, NewTask{Subject: "golden-0", Description: desc, ActiveForm: active})
	got, err := os.ReadFile(l.Path(task.ID))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "task_created.golden.json"))
	if err != nil || !bytes.Equal(got, golden) {
		t.Fatalf("created task differs from testdata/task_created.golden.json (%v):\n%s", err, got)
	}
	claudeDir := filepath.Join(t.TempDir(), "claude")
	testutil.RunClaudeTaskWriter(t, testutil.ClaudeTaskWriter(t, claudeDir, "golden", 1, desc, active))
	want, err := os.ReadFile(filepath.Join(claudeDir, "1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("paneteam wrote\n%s\nClaude Code writes\n%s", got, want)
	}

	// Claude Code's claim and status update: {...existing, owner} then
	// {...existing, status}; the owner key is appended.
	js := `const fs=require('fs');const p=process.argv[1];` +
		`let t=JSON.parse(fs.readFileSync(p,'utf8'));t={...t,owner:'alice'};t={...t,status:'in_progress'};` +
		`process.stdout.write(JSON.stringify(t,null,2))`
	claimed, err := exec.Command("node", "-e", js, filepath.Join(claudeDir, "1.json")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(context.Background(), task.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(l.Path(task.ID))
	if !bytes.Equal(got, claimed) {
		t.Fatalf("after claim paneteam has\n%s\nClaude Code would have\n%s", got, claimed)
	}
}

// TestIDsShareOneSequenceWithClaudeCode alternates creators and a delete:
// each side reads what the other wrote (file names, .highwatermark).
func TestIDsShareOneSequenceWithClaudeCode(t *testing.T) {
	ctx := context.Background()
	_, l := newTaskTeam(t)
	if ids := ackedIDs(testutil.RunClaudeTaskWriter(t, testutil.ClaudeTaskWriter(t, l.Dir, "claude", 2))); ids != "1,2" {
		t.Fatalf("claude ids %v, want 1,2", ids)
	}
	if task := mustCreate(t, l, NewTask{Subject: "ours"}); task.ID != "3" {
		t.Fatalf("paneteam id %s after Claude's 1,2; want 3", task.ID)
	}
	if err := l.Delete(ctx, "3"); err != nil {
		t.Fatal(err)
	}
	if ids := ackedIDs(testutil.RunClaudeTaskWriter(t, testutil.ClaudeTaskWriter(t, l.Dir, "claude-late", 1))); ids != "4" {
		t.Fatalf("Claude Code reused deleted id: got %q, want 4", ids)
	}
	if st, err := os.Stat(filepath.Join(l.Dir, ".lock")); err != nil || !st.Mode().IsRegular() {
		t.Fatalf(".lock must stay a regular file for Claude Code: %v %v", st, err)
	}
	if _, err := os.Stat(lockfile.LockPath(filepath.Join(l.Dir, ".lock"))); !os.IsNotExist(err) {
		t.Fatalf("list lock left held: %v", err)
	}
}

// TestConcurrentCreationWithClaudeCode races Claude Code's createTask (Node
// peers) against paneteam creators in this process, many at once: every
// acknowledged task keeps its own id and file.
func TestConcurrentCreationWithClaudeCode(t *testing.T) {
	const nodeWriters, goWriters, each = 2, 4, 40
	_, l := newTaskTeam(t)
	var mu sync.Mutex
	subjectOf := map[string]string{}
	ack := func(id, subject string) {
		mu.Lock()
		defer mu.Unlock()
		if prev, dup := subjectOf[id]; dup {
			t.Errorf("id %s handed out twice: %q and %q", id, prev, subject)
		}
		subjectOf[id] = subject
	}
	var cmds []*exec.Cmd
	for w := 0; w < nodeWriters; w++ {
		cmds = append(cmds, testutil.ClaudeTaskWriter(t, l.Dir, fmt.Sprintf("claude%d", w), each))
	}
	var wg sync.WaitGroup
	for _, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, a := range testutil.RunClaudeTaskWriter(t, cmd) {
				ack(a.ID, a.Subject)
			}
		}()
	}
	for w := 0; w < goWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				subject := fmt.Sprintf("paneteam%d-%d", w, i)
				task, err := l.Create(context.Background(), NewTask{Subject: subject})
				if err != nil {
					t.Errorf("create: %v", err)
					continue
				}
				ack(task.ID, subject)
			}
		}()
	}
	wg.Wait()
	if want := (nodeWriters + goWriters) * each; len(subjectOf) != want {
		t.Fatalf("%d tasks acknowledged, want %d", len(subjectOf), want)
	}
	tasks, skipped, err := l.List()
	if err != nil || len(skipped) > 0 || len(tasks) != len(subjectOf) {
		t.Fatalf("%d tasks listed (%v, skipped %v), want %d", len(tasks), err, skipped, len(subjectOf))
	}
	for _, task := range tasks {
		if task.Subject != subjectOf[task.ID] {
			t.Errorf("task %s holds %q, acknowledged as %q: overwritten", task.ID, task.Subject, subjectOf[task.ID])
		}
	}
}
