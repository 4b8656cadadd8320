package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/paneteam/paneteam/internal/agents/router"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/team"
)

// teammateWorktree gives the teammate Claude's lead started its own
// worktree ('paneteam claude --worktree'), moves this process into the
// folder matching the lead's, and starts the process that removes the
// worktree, if untouched, once this one ends. It returns what the
// teammate is told of it, "" when it works in the lead's folder (a
// warning in its pane says why).
func teammateWorktree(ctx context.Context, env *Env, rc router.Config, link string, tm router.Teammate) string {
	if !rc.Worktree || tm.Team == "" || tm.Name == "" {
		return ""
	}
	cwd, err := os.Getwd()
	if err == nil {
		_, err = worktree.Preflight(ctx, cwd)
	}
	if err != nil {
		warnf(*env, "%s works in the lead's folder: %v", tm.Name, err)
		return ""
	}
	root, _ := team.Root("", env.Getenv)
	state := router.StateDir(link)
	recs := worktree.OpenRecords(state)
	wt, err := worktree.Give(ctx, recs, cwd, root, tm.Team, tm.Name, os.Getpid())
	if wt == nil {
		warnf(*env, "%s works in the lead's folder: %v", tm.Name, err)
		return ""
	}
	if err != nil {
		warnf(*env, "%v", err)
	}
	if err := os.Chdir(wt.Cwd); err != nil {
		warnf(*env, "%s works in the lead's folder: %v", tm.Name, err)
		return ""
	}
	env.Vars = withVar(env.Vars, "PWD", wt.Cwd)
	if err := startReaper(rc.Exe, state, wt.Path, os.Getpid(), env.Environ()); err != nil {
		warnf(*env, "%s's worktree stays after it ends (paneteam worktrees removes it): %v", tm.Name, err)
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
func startReaper(exe, state, path string, pid int, environ []string) error {
	cmd := exec.Command(exe, "worktrees", "--remove", path, "--after-pid", strconv.Itoa(pid))
	cmd.Env = append(environ, "PANETEAM_STATE_DIR="+state)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// withVar is vars with k set to v (a copy).
func withVar(vars map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(vars)+1)
	for kk, vv := range vars {
		out[kk] = vv
	}
	out[k] = v
	return out
}

// worktreeNotes is what 'paneteam claude --worktree' says at start about
// the folder it runs in.
func worktreeNotes(ctx context.Context, cwd string) []string {
	notes, err := worktree.Preflight(ctx, cwd)
	if err != nil {
		return []string{"--worktree: " + err.Error()}
	}
	for i, n := range notes {
		notes[i] = "--worktree: " + n
	}
	return notes
}

// tidyWorktrees removes the untouched worktrees of teammates that ended
// when their removal was cut short, and says so.
func tidyWorktrees(ctx context.Context, env Env, state string) {
	removed, errs := worktree.Sweep(ctx, worktree.OpenRecords(state))
	for _, r := range removed {
		warnf(env, "removed %s/%s's untouched worktree %s", r.Team, r.Member, r.Path)
	}
	for _, err := range errs {
		warnf(env, "%v", err)
	}
}
