package router

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/team"
)

// worktree gives the teammate Claude's lead started its own worktree
// ('paneteam claude --worktree'), moves this process into the folder
// matching the lead's, and starts the process that removes the
// worktree, if untouched, once this one ends. It returns what the
// teammate is told of it, "" when it works in the lead's folder (a
// warning in its pane says why).
func (r *run) worktree(ctx context.Context, tm Teammate) string {
	if !r.rc.Worktree || tm.Team == "" || tm.Name == "" {
		return ""
	}
	cwd, err := os.Getwd()
	if err == nil {
		_, err = worktree.Preflight(ctx, cwd)
	}
	if err != nil {
		r.warn("%s works in the lead's folder: %v", tm.Name, err)
		return ""
	}
	root, _ := team.Root("", r.getenv)
	state := StateDir(r.pane.Link)
	recs := worktree.OpenRecords(state)
	wt, err := worktree.Give(ctx, recs, cwd, root, tm.Team, tm.Name, os.Getpid())
	if wt == nil {
		r.warn("%s works in the lead's folder: %v", tm.Name, err)
		return ""
	}
	if err != nil {
		r.warn("%v", err)
	}
	if err := os.Chdir(wt.Cwd); err != nil {
		r.warn("%s works in the lead's folder: %v", tm.Name, err)
		return ""
	}
	r.vars = with(r.vars, "PWD", wt.Cwd)
	if err := startReaper(r.rc.Exe, state, wt.Path, os.Getpid(), environ(r.vars)); err != nil {
		r.warn("%s's worktree stays after it ends (paneteam worktrees removes it): %v", tm.Name, err)
	}
	from := fmt.Sprintf("started from commit %.12s of the lead's checkout", wt.Base)
	if wt.Reused {
		// An earlier teammate of this name left the branch (its work
		// kept): this one goes on from there, not from the lead's commit.
		from = "which an earlier teammate of your name left: its commits and files are there, and you go on from them"
	}
	return fmt.Sprintf("You work in a git worktree of your own at %s, on the branch %s, %s. "+
		"Make your changes there and commit them on %s; leave other branches and the lead's checkout alone. "+
		"When you report to the lead, name your branch and your commits, so the lead can review and merge them.",
		wt.Path, wt.Branch, from, wt.Branch)
}

// startReaper starts, in a session of its own (out of the pane, whose
// processes the lead's exit kills), 'paneteam worktrees --remove PATH
// --after-pid PID': it waits for the teammate's process to end, then
// removes its worktree if it holds nothing.
func startReaper(exe, state, path string, pid int, env []string) error {
	cmd := exec.Command(exe, "worktrees", "--remove", path, "--after-pid", strconv.Itoa(pid))
	cmd.Env = append(env, "PANETEAM_STATE_DIR="+state)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s worktrees --remove: %w", exe, err)
	}
	return cmd.Process.Release()
}

// environ is vars as KEY=VALUE pairs for a child process.
func environ(vars map[string]string) []string {
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}
