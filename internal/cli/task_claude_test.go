package cli

import (
	"bytes"
	"errors"
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

// procRun is a started child process with its output captured.
type procRun struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
}

func startProc(t *testing.T, bin string, env []string, args ...string) *procRun {
	t.Helper()
	p := &procRun{cmd: exec.Command(bin, args...)}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// wait returns the exit code and stderr.
func (p *procRun) wait(t *testing.T) (int, string) {
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Errorf("%v: %v", p.cmd.Args, err)
		return -1, p.stderr.String()
	}
	return p.cmd.ProcessState.ExitCode(), p.stderr.String()
}

// TestTaskCreationAlongsideClaudeCode runs Claude Code's createTask (the
// Node peer, proper-lockfile with 30 retries) and paneteam processes
// creating tasks in one list at the same time: every acknowledged task
// has its own id and its own file, with its own subject.
func TestTaskCreationAlongsideClaudeCode(t *testing.T) {
	const claudeWriters, claudeEach, ptLoops, ptEach = 2, 15, 3, 8
	tm, vars := taskTeam(t)
	bin := testutil.Binary(t)
	env := testutil.Env("PANETEAM_ROOT=" + vars["PANETEAM_ROOT"])

	var mu sync.Mutex
	subjectOf := map[string]string{} // id -> subject, from acknowledgements
	ack := func(id, subject string) {
		mu.Lock()
		defer mu.Unlock()
		if prev, dup := subjectOf[id]; dup {
			t.Errorf("id %s handed out twice: %q and %q", id, prev, subject)
		}
		subjectOf[id] = subject
	}
	var wg sync.WaitGroup
	for w := 0; w < claudeWriters; w++ {
		cmd := testutil.ClaudeTaskWriter(t, tm.TasksDir(), fmt.Sprintf("claude%d", w), claudeEach)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, a := range testutil.RunClaudeTaskWriter(t, cmd) {
				ack(a.ID, a.Subject)
			}
		}()
	}
	for l := 0; l < ptLoops; l++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < ptEach; i++ {
				subject := fmt.Sprintf("paneteam%d-%d", l, i)
				cmd := exec.Command(bin, "task", "create", "--team", tm.Name, "--subject", subject)
				cmd.Env = env
				out, err := cmd.Output()
				if err != nil {
					t.Errorf("paneteam task create: %v", err)
					continue
				}
				ack(strings.TrimSpace(string(out)), subject)
			}
		}()
	}
	wg.Wait()

	if want := claudeWriters*claudeEach + ptLoops*ptEach; len(subjectOf) != want {
		t.Fatalf("%d tasks acknowledged, want %d", len(subjectOf), want)
	}
	files, _ := filepath.Glob(filepath.Join(tm.TasksDir(), "*.json"))
	if len(files) != len(subjectOf) {
		t.Fatalf("%d task files for %d acknowledged tasks", len(files), len(subjectOf))
	}
	for id, subject := range subjectOf {
		if got := taskFile(t, tm, id); got["id"] != id || got["subject"] != subject {
			t.Errorf("%s.json holds %v, want subject %q: a task was overwritten", id, got, subject)
		}
	}
	if _, err := os.Stat(lockfile.LockPath(filepath.Join(tm.TasksDir(), ".lock"))); !os.IsNotExist(err) {
		t.Fatalf("task list lock left behind: %v", err)
	}
}
