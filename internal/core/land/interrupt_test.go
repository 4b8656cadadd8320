package land

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestLandInterruptedLeavesTheLeadAsItWas kills a land, and everything it
// started, in the middle (while the person's hook runs in the scratch
// worktree): the lead's HEAD, refs, index and working tree are as they
// were, and the next land finishes the job.
func TestLandInterruptedLeavesTheLeadAsItWas(t *testing.T) {
	f := newFixture(t)
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	f.write(f.repo, "a.txt", "one\ntwo\nthree\nmine\n")
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(f.repo, ".git", "hooks", "pre-merge-commit")
	f.write(f.repo, filepath.Join(".git", "hooks", "pre-merge-commit"), fmt.Sprintf("#!/bin/sh\ntouch %q\nsleep 30\n", marker))
	os.Chmod(hook, 0o755)
	state := f.leadState()

	cmd := exec.Command(os.Args[0], "-test.run=^TestLandHelperProcess$")
	cmd.Env = append(os.Environ(), "LAND_HELPER_REPO="+f.repo, "LAND_HELPER_RECORDS="+f.recs.Dir, "LAND_HELPER_PATH="+r.Path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, "the land to reach the hook", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait() //nolint:errcheck

	if got := f.leadState(); got != state {
		t.Fatalf("a killed land changed the lead:\nbefore %s\nafter  %s", state, got)
	}
	if _, err := os.Stat(r.Path); err != nil {
		t.Errorf("the teammate's worktree went with a killed land: %v", err)
	}
	os.Remove(hook)
	res, err := f.land(r, Merge)
	if err != nil {
		t.Fatalf("the land after an interrupted one: %v", err)
	}
	if f.read("c.txt") != "sea\n" || !res.Removed {
		t.Errorf("the land after an interrupted one did not land: c.txt %q, removed %v", f.read("c.txt"), res.Removed)
	}
	if list := f.git(f.repo, "worktree", "list"); strings.Contains(list, scratchPrefix) {
		t.Errorf("the interrupted land's scratch worktree is left:\n%s", list)
	}
}

// TestLandHelperProcess is the land TestLandInterruptedLeavesTheLeadAsItWas
// kills; it does nothing in a normal run.
func TestLandHelperProcess(t *testing.T) {
	repo := os.Getenv("LAND_HELPER_REPO")
	if repo == "" {
		t.Skip("run by TestLandInterruptedLeavesTheLeadAsItWas")
	}
	recs := worktree.Records{Dir: os.Getenv("LAND_HELPER_RECORDS")}
	r, err := recs.Read(os.Getenv("LAND_HELPER_PATH"))
	if err != nil || r == nil {
		t.Fatal(r, err)
	}
	l, err := FindLead(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	Land(context.Background(), Request{Lead: l, Record: *r, Records: recs}) //nolint:errcheck
}
