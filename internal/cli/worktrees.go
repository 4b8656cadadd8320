package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/term/visible"
)

func worktreesCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "worktrees",
		Usage: "list the git worktrees teammates kept (branch, commits, changes), or remove one",
		Description: `Lists the worktrees paneteam gave teammates ('paneteam claude --worktree')
that are still there: team, teammate, branch, the commits it has past the
commit it started from, its uncommitted files, and where it is. A worktree
goes by itself, with its branch, when its teammate ends and it holds
nothing; one with work stays until you merge what you want and remove it:

    paneteam worktrees
    git -C REPO merge paneteam/TEAM/NAME     # or: git diff main...paneteam/TEAM/NAME
    paneteam worktrees --remove TEAM/NAME

--remove (TEAM/NAME or the worktree's path) refuses while the teammate runs,
and while the worktree has uncommitted files or commits no other branch,
tag or remote holds; --force removes it and deletes its branch anyway.

Only worktrees paneteam recorded in its state folder are listed or ever
removed, and only the very folder it made: one replaced by a symbolic link,
moved to another branch, or whose .git names another worktree is refused,
--force too, and the listing says why. A worktree paneteam has no record of
(one a member row in config.json names, say) is never removed by paneteam.`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "team", Usage: "only this team's worktrees"},
			&ucli.StringFlag{Name: "remove", Usage: "remove the worktree of TEAM/NAME (or at PATH) and its branch, if that loses nothing"},
			&ucli.BoolFlag{Name: "force", Usage: "with --remove: remove it and its branch even with work in it"},
			// The process the router leaves behind: waits for the
			// teammate's process, then removes an untouched worktree.
			&ucli.IntFlag{Name: "after-pid", Hidden: true},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			state, err := env.stateDir()
			if err != nil {
				return err
			}
			recs := worktree.OpenRecords(state)
			target := readFlags(c).String("remove")
			switch {
			case readFlags(c).Int("after-pid") > 0 && target != "":
				reapWorktree(ctx, recs, target, int(readFlags(c).Int("after-pid")))
				return nil
			case readFlags(c).Bool("force") && target == "":
				return usagef("--force goes with --remove")
			case target != "":
				return removeWorktree(ctx, env, recs, target, readFlags(c).Bool("force"))
			}
			return listWorktrees(ctx, env, recs, readFlags(c).String("team"), readFlags(c).Bool("json"))
		},
	}
}

// worktreeRow is one worktree as --json prints it.
type worktreeRow struct {
	Team    string `json:"team"`
	Member  string `json:"member"`
	Branch  string `json:"branch"`
	Base    string `json:"base"`
	Ahead   int    `json:"ahead"`
	Changed int    `json:"changed"`
	Running bool   `json:"running"`
	Path    string `json:"path"`
	Repo    string `json:"repo"`
	// Refused says why paneteam will not remove it: what is at its path
	// is not the worktree it made (worktree.Verify).
	Refused string `json:"refused,omitempty"`
}

func listWorktrees(ctx context.Context, env Env, recs worktree.Records, teamName string, asJSON bool) error {
	list, errs := recs.List()
	for _, err := range errs {
		warnf(env, "%v", err)
	}
	rows := []worktreeRow{}
	for _, r := range list {
		if teamName != "" && r.Team != teamName {
			continue
		}
		st := worktree.Describe(ctx, r)
		if st.Gone {
			recs.Forget(r.Path) // removed by hand: nothing to list
			continue
		}
		row := worktreeRow{Team: r.Team, Member: r.Member, Branch: r.Branch, Base: r.Base,
			Ahead: st.Ahead, Changed: st.Changed, Running: st.Running, Path: r.Path, Repo: r.Repo}
		if err := worktree.Verify(ctx, r); err != nil {
			row.Refused = err.Error()
		}
		rows = append(rows, row)
	}
	if asJSON {
		return printJSON(env.Stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(env.Stdout, "no worktrees of teammates")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEAM\tTEAMMATE\tBRANCH\tCOMMITS\tCHANGED\tPATH")
	for _, r := range rows {
		name := r.Member
		if r.Running {
			name += " (running)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Team, name, r.Branch, count(r.Ahead), count(r.Changed), r.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Refused != "" {
			fmt.Fprintf(env.Stdout, "refused: %s\n", visible.Line(r.Refused))
		}
	}
	_, err := fmt.Fprintln(env.Stdout, "(paneteam removes only these worktrees, recorded when it made them; any other is yours to remove)")
	return err
}

func count(n int) string {
	if n < 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

// findWorktree is the record --remove names: TEAM/NAME or a path.
func findWorktree(recs worktree.Records, target string) (worktree.Record, error) {
	list, _ := recs.List()
	var found []worktree.Record
	for _, r := range list {
		if r.Team+"/"+r.Member == target {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		if abs, err := filepath.Abs(target); err == nil {
			if r, err := recs.Read(abs); err == nil && r != nil {
				found = append(found, *r)
			}
		}
	}
	switch len(found) {
	case 0:
		return worktree.Record{}, usagef("no worktree of a teammate is %s ('paneteam worktrees' lists them)", target)
	case 1:
		return found[0], nil
	}
	var paths []string
	for _, r := range found {
		paths = append(paths, r.Path)
	}
	return worktree.Record{}, usagef("%s names %d worktrees (%s): give its path", target, len(found), strings.Join(paths, ", "))
}

func removeWorktree(ctx context.Context, env Env, recs worktree.Records, target string, force bool) error {
	r, err := findWorktree(recs, target)
	if err != nil {
		return err
	}
	if r.Running() {
		return exitError{code: ExitFailure, err: fmt.Errorf("%s/%s is still running in %s: it goes by itself when its teammate ends, if untouched", r.Team, r.Member, r.Path)}
	}
	if force {
		if err = worktree.Drop(ctx, r); err == nil {
			err = recs.Forget(r.Path)
		}
	} else {
		err = recs.Take(ctx, r)
	}
	var k *worktree.KeptError
	if errors.As(err, &k) {
		if !k.Foreign && !force {
			err = fmt.Errorf("%w (--force removes it anyway)", err)
		}
		return exitError{code: ExitFailure, err: err}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "removed %s and its branch %s\n", r.Path, r.Branch)
	return nil
}

// reapWorktree waits for the teammate's process to end, then removes its
// worktree if it holds nothing. It runs in a session of its own, out of
// the pane: the lead's exit kills what runs in it.
func reapWorktree(ctx context.Context, recs worktree.Records, path string, pid int) {
	rec, _ := recs.Read(path)
	start := ""
	if rec != nil && rec.PID == pid {
		start = rec.PIDStart
	}
	for proc.Alive(pid, start) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
	r, err := recs.Read(path)
	if err != nil || r == nil || r.PID != pid || r.PIDStart != start {
		return // gone already, or a later teammate's now
	}
	// Kept with work, or cut short: the next 'paneteam claude' or
	// 'cleanup --orphans' looks again.
	// One that is not the worktree paneteam made is refused and stays
	// listed, with why, in 'paneteam worktrees'.
	worktree.Tidy(ctx, recs, *r) //nolint:errcheck
}
