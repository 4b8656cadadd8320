package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/term/visible"
)

func landCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "land",
		Usage:     "take a teammate's commits onto your branch (merge by default, --squash, --rebase), then remove its worktree; prints the undo",
		ArgsUsage: "NAME",
		Description: `Run from the working tree of the branch the work should reach (see
'paneteam review' for who has work and whether it lands cleanly):

    paneteam land alice                  # a merge commit (the default)
    paneteam land alice --squash -m "parser: keep the error"
    paneteam land alice --rebase         # its commits replayed on yours

    paneteam land --all --test "go test ./..."   # the merge queue
    paneteam land --all --dry-run

The land is made in a scratch worktree detached at your branch's tip, with
your own git configuration: your hooks run and commits are signed as yours
are; a hook that fails stops the land and is named. Only then do your
branch and working tree move to the result, as 'git merge --ff-only' moves
them, and only if nothing moved your branch meanwhile: your uncommitted
changes in other files stay as they are. An interrupted land (Ctrl-C, a
crash) leaves your tree, index, HEAD and branches as they were.

Then the teammate's worktree and branch go, by the fail-closed rules of
'paneteam worktrees --remove': the branch counts as held once every
commit's change is on your branch (a squash or rebase lets it go), and
anything made after the land keeps it (--keep keeps it anyway). The exact
command that undoes the land is printed after it.

It refuses, changing nothing, and says what to run next, when: the
teammate is still running (--stop asks it to shut down first, by
shutdown's rules: a teammate Claude's lead started is refused, ask that
lead); it has uncommitted files (ask it to commit, or --include-uncommitted
commits them on its branch under your git identity); your working tree has
uncommitted changes in a file the land would change; or the change
conflicts with your branch: the files are named, and --ask sends the
teammate a message to bring its branch up to date with yours, resolve them
and report back (--ask works while it runs).

--pr opens a pull request instead of landing here:

    paneteam land alice --pr             # push its branch, then gh pr create
    paneteam land alice --pr --remote fork

The teammate's branch is pushed under its own name to your branch's
upstream remote, else origin (--remote NAME picks another), with your git
configuration: your pre-push hook runs, and one that fails stops it and is
named. gh then opens the request on that remote's repository, into your
branch's upstream branch (else your branch by its name). The title is the
first line of the teammate's last message to you (read only: nothing is
marked read), else its single commit's subject (-m gives another); the body
is that message and the list of its commits. Without gh the branch is
pushed and the gh command to run (and, for a GitHub-style remote, the page
to open) is printed; a gh that fails shows what it said, and the branch
stays pushed. Your branch, index and working tree are untouched, and the
teammate's worktree and branch are kept: nothing has landed. It refuses,
pushing nothing, as a land does (still running: --stop; uncommitted files:
--include-uncommitted), when the branch has nothing your branch lacks, and
when the remote refuses the push (it names the fix). --json prints name,
branch, remote, pushed and url. --pr goes with none of --merge, --squash,
--rebase, --all, --drop, --ask.

Two attempts at one task: 'paneteam review --compare A B' shows how their
branches differ; 'paneteam land A --drop B' lands A and then removes B's
worktree and branch, by the same fail-closed rules: B's own commits are
named, and kept unless --force.

--all is the merge queue: every teammate with work that has ended, one at
a time, oldest last commit first, in one scratch worktree; after each,
--test CMD must pass. One that conflicts, fails a hook or fails CMD is
skipped, not the queue, and told why (the files, or the tail of CMD's
output) while it is still a member. At the end your branch and tree move
to the result as for one land, or not at all, and a table says per
teammate: landed, conflict, tests failed, hook failed, still running,
uncommitted.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.BoolFlag{Name: "merge", Usage: "a merge commit, the teammate's commits kept as they are (the default)"},
			&ucli.BoolFlag{Name: "squash", Usage: "one commit of the whole change; its message from the teammate's commits, or --message"},
			&ucli.BoolFlag{Name: "rebase", Usage: "the teammate's commits replayed on your branch"},
			&ucli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "the merge or squash commit's message; with --pr, the pull request's title"},
			&ucli.BoolFlag{Name: "include-uncommitted", Usage: "commit the teammate's uncommitted files on its branch first (under your git identity), instead of refusing"},
			&ucli.BoolFlag{Name: "stop", Usage: "a teammate still running: ask it to shut down first (by shutdown's rules), then land once it has ended"},
			&ucli.StringFlag{Name: "drop", Usage: "after the land, remove teammate B's worktree and branch too (another attempt at the task); its own commits are named and kept unless --force"},
			&ucli.BoolFlag{Name: "force", Usage: "with --drop: remove B's worktree and branch even with commits or changes of its own"},
			&ucli.BoolFlag{Name: "keep", Usage: "keep the teammate's worktree and branch after the land"},
			&ucli.BoolFlag{Name: "all", Usage: "the merge queue: land every teammate with work that has ended, one at a time, oldest last commit first"},
			&ucli.StringFlag{Name: "test", Usage: "with --all: a command your shell runs in the scratch worktree after each land; a teammate that fails it is skipped"},
			&ucli.BoolFlag{Name: "dry-run", Usage: "with --all: say what would happen, merging in memory only (no hook or --test runs)"},
			&ucli.BoolFlag{Name: "ask", Usage: "on a conflict: message the teammate to bring its branch up to date with yours and resolve the files (it may be running)"},
			&ucli.BoolFlag{Name: "pr", Usage: "instead of landing here: push the teammate's branch to your remote and open a pull request with gh (its title and body from the teammate's last message to you and its commits); your branch and tree are untouched, its worktree kept"},
			&ucli.StringFlag{Name: "remote", Usage: "with --pr: the remote to push to (default: your branch's upstream remote, else origin)"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			v := readFlags(c)
			o := landOptions{Team: v.String("team"), Root: v.String("root"), Message: v.String("message"),
				IncludeUncommitted: v.Bool("include-uncommitted"), Keep: v.Bool("keep"), Ask: v.Bool("ask"),
				Drop: v.String("drop"), Force: v.Bool("force"),
				Stop: v.Bool("stop"), Lifecycle: readLifecycle(c, env),
				All: v.Bool("all"), Test: v.String("test"), DryRun: v.Bool("dry-run"),
				PR: v.Bool("pr"), Remote: v.String("remote"),
				JSON: v.Bool("json"), Args: c.Args().Slice()}
			for _, m := range []land.Mode{land.Merge, land.Squash, land.Rebase} {
				if v.Bool(string(m)) {
					if o.Mode != "" {
						return usagef("give one of --merge, --squash and --rebase")
					}
					o.Mode = m
				}
			}
			return runLand(ctx, env, o)
		},
	}
}

type landOptions struct {
	Team               string
	Root               string
	Mode               land.Mode
	Message            string
	IncludeUncommitted bool
	Keep               bool
	Ask                bool
	Stop               bool
	Drop               string
	Force              bool
	Lifecycle          lifecycle.Options
	All                bool
	Test               string
	DryRun             bool
	PR                 bool
	Remote             string
	JSON               bool
	Args               []string
}

// landRow is a land as --json prints it.
type landRow struct {
	Name string `json:"name"`
	Team string `json:"team"`
	Onto string `json:"onto"`
	*land.Result
	Kept string `json:"kept,omitempty"`
}

func runLand(ctx context.Context, env Env, o landOptions) error {
	if o.PR {
		return runPR(ctx, env, o)
	}
	if o.Remote != "" {
		return usagef("--remote goes with --pr")
	}
	if o.All {
		return runQueue(ctx, env, o)
	}
	if o.Test != "" || o.DryRun {
		return usagef("--test and --dry-run go with --all")
	}
	if len(o.Args) != 1 {
		return usagef("give the teammate to land: paneteam land NAME ('paneteam review' lists who has work)")
	}
	lead, recs, err := leadAndRecords(ctx, env)
	if err != nil {
		return err
	}
	r, err := findTeammate(recs, o.Team, o.Args[0])
	if err != nil {
		return err
	}
	if o.Ask {
		return askToUpdate(ctx, env, o, lead, r)
	}
	var drop worktree.Record
	if o.Drop != "" {
		if drop, err = findTeammate(recs, o.Team, o.Drop); err != nil {
			return err
		}
		if drop.Running() {
			stop := fmt.Sprintf("stop it first (paneteam shutdown --team %s %s)", drop.Team, drop.Member)
			if land.StillRunning(drop).ClaudeLead {
				stop = fmt.Sprintf("ask Claude's lead, in that Claude Code session, to shut %s down first (only it can)", drop.Member)
			}
			return exitError{code: ExitFailure, err: fmt.Errorf("%s, whose worktree --drop would remove, is still running: nothing was landed; %s", drop.Member, stop)}
		}
	} else if o.Force {
		return usagef("--force goes with --drop B")
	}
	if o.Stop && r.Running() {
		if err := stopTeammate(ctx, env, o, r); err != nil {
			return err
		}
	}
	res, err := land.Land(ctx, land.Request{Lead: lead, Record: r, Records: recs, Mode: o.Mode, Message: o.Message,
		IncludeUncommitted: o.IncludeUncommitted, KeepWorktree: o.Keep})
	if err != nil {
		return landRefused(err, lead, r, "paneteam land "+landTarget(r))
	}
	var dropErr error
	if o.Drop != "" {
		dropErr = dropOther(ctx, env, lead, recs, drop, o.Force)
	}
	if o.JSON {
		row := landRow{Name: r.Member, Team: r.Team, Onto: lead.Branch, Result: res}
		if res.Kept != nil {
			row.Kept = res.Kept.Error()
		}
		if err := printJSON(env.Stdout, row); err != nil {
			return err
		}
	} else {
		printLanded(env, lead, r, res, o.Keep)
	}
	return dropErr
}

// dropOther removes the other attempt's worktree and branch once the
// land is made, naming its own commits first; kept unless force.
func dropOther(ctx context.Context, env Env, lead land.Lead, recs worktree.Records, b worktree.Record, force bool) error {
	unique, err := land.Unique(ctx, lead, b)
	if err != nil {
		return err
	}
	for _, c := range unique {
		fmt.Fprintf(env.Stderr, "paneteam: %s's own commit, not on %s: %s\n", b.Member, lead.Branch, visible.Line(c))
	}
	err = land.Drop(ctx, lead, recs, b, force)
	switch {
	case worktree.IsKept(err):
		return exitError{code: ExitFailure, err: fmt.Errorf("the land is made, but %w; to drop it anyway: paneteam worktrees --remove %s/%s --force", err, b.Team, b.Member)}
	case err != nil:
		return fmt.Errorf("the land is made, but %s's worktree was not dropped: %w", b.Member, err)
	}
	fmt.Fprintf(env.Stderr, "paneteam: dropped %s's worktree %s and its branch %s\n", b.Member, b.Path, b.Branch)
	return nil
}

func printLanded(env Env, lead land.Lead, r worktree.Record, res *land.Result, keep bool) {
	if res.Committed != "" {
		fmt.Fprintf(env.Stdout, "committed %s's uncommitted files on %s as %s, in your name\n", r.Member, r.Branch, shortID(res.Committed))
	}
	if res.Nothing {
		fmt.Fprintf(env.Stdout, "%s holds every change of %s already: nothing to land\n", lead.Branch, r.Branch)
	} else {
		fmt.Fprintf(env.Stdout, "landed %s (%s) on %s: %s..%s, %d commit(s), %d file(s)\n",
			r.Member, res.Mode, lead.Branch, shortID(res.Before), shortID(res.After), res.Commits, len(res.Files))
	}
	switch {
	case res.Removed:
		fmt.Fprintf(env.Stdout, "removed %s's worktree %s and its branch %s\n", r.Member, r.Path, r.Branch)
	case keep:
	case res.Kept != nil:
		fmt.Fprintf(env.Stdout, "kept %s's worktree: %v\n", r.Member, res.Kept)
	}
	fmt.Fprintf(env.Stdout, "undo: %s\n", res.Undo)
}

// landRefused words a refusal with the command to run next.
// again is the command that tries once more.
func landRefused(err error, lead land.Lead, r worktree.Record, again string) error {
	var (
		running *land.RunningError
		unc     *land.UncommittedError
		dirty   *land.DirtyError
		conf    *land.ConflictError
		hook    *land.HookError
		moved   *land.MovedError
		det     *land.DetachedError
		own     *land.OwnBranchError
		sub     *land.SubmoduleError
	)
	var next string
	switch {
	case errors.As(err, &running) && running.ClaudeLead:
		next = fmt.Sprintf("let it finish, or ask Claude's lead, in that Claude Code session, to shut %s down (only it can); then: %s", r.Member, again)
	case errors.As(err, &running):
		next = fmt.Sprintf("let it finish, then: %s --stop (asks it to shut down first; or paneteam shutdown --team %s %s)", again, r.Team, r.Member)
	case errors.As(err, &unc):
		next = fmt.Sprintf("ask it to commit (paneteam send --team %s --to %s \"commit your work\"), or commit them on its branch in your name: %s --include-uncommitted", r.Team, r.Member, again)
	case errors.As(err, &dirty):
		next = "commit or stash them (git stash), then: " + again
	case errors.As(err, &conf):
		next = fmt.Sprintf("ask %s to bring its branch up to date with %s and resolve them: %s --ask", r.Member, lead.Branch, again)
	case errors.As(err, &hook):
		next = "nothing moved; fix what the hook reports, then: " + again
	case errors.As(err, &moved):
		next = "nothing of yours moved; look at your branch, then: " + again
	case errors.As(err, &det), errors.As(err, &own):
		next = "switch to the branch the work should reach (git switch BRANCH), then: " + again
	case errors.As(err, &sub):
		next = fmt.Sprintf("nothing moved; fetch the commit into your submodule, then: %s", again)
		if sub.From != "" {
			next = fmt.Sprintf("nothing moved; fetch the commit into your submodule (%s), then: %s", submoduleFetch(sub, sub.From), again)
		}
	default:
		return err
	}
	return exitError{code: ExitFailure, err: fmt.Errorf("%w\n%s", err, next)}
}

// submoduleFetch is the command that fetches sub's commit from the
// checkout from into the lead's: a submodule's path is a teammate's
// choice, so each word is quoted for the shell it is pasted into.
func submoduleFetch(sub *land.SubmoduleError, from string) string {
	return fmt.Sprintf("git -C %s fetch %s %s", land.ShellQuote(filepath.Join(sub.Dir, sub.Path)), land.ShellQuote(from), land.ShellQuote(sub.Commit))
}

func landTarget(r worktree.Record) string { return "--team " + r.Team + " " + r.Member }

// askToUpdate tells the teammate its branch conflicts with the lead's,
// in which files, and how to bring it up to date; it may be running.
func askToUpdate(ctx context.Context, env Env, o landOptions, lead land.Lead, r worktree.Record) error {
	rows, err := land.Review(ctx, lead, []worktree.Record{r})
	if err != nil {
		return err
	}
	if len(rows) == 0 || rows[0].Clean {
		fmt.Fprintf(env.Stdout, "%s lands cleanly on %s: nothing to ask (paneteam land %s)\n", r.Member, lead.Branch, landTarget(r))
		return nil
	}
	files := rows[0].LeadConflicts
	msg := fmt.Sprintf("Your branch %s conflicts with %s, the branch your work should reach, in: %s.\n"+
		"Please bring your branch up to date: in your worktree run `git merge %s`, resolve those files, "+
		"commit, check it still works, and report back to me when it is done.",
		r.Branch, lead.Branch, land.FileList(files, teammateFiles), land.ShellQuote(lead.Branch))
	if err := tellTeammate(ctx, env, o.Root, r, msg, "your branch conflicts with "+lead.Branch); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "asked %s to bring %s up to date with %s and resolve %s\n", r.Member, r.Branch, lead.Branch, visible.Line(land.FileList(files, land.ListedFiles)))
	return nil
}

// stopTeammate asks r's teammate to shut down by shutdown's rules and
// waits for its process to end, so its worktree holds still while it
// lands.
func stopTeammate(ctx context.Context, env Env, o landOptions, r worktree.Record) error {
	t, _, err := teamScope{Root: orDefault(o.Root, r.Root), Team: r.Team}.open(ctx, env)
	if err != nil {
		return fmt.Errorf("stop %s first: %w", r.Member, err)
	}
	res, err := o.Lifecycle.Shutdown(ctx, t, lifecycle.ShutdownOptions{Names: []string{r.Member},
		Reason: "your work is being landed", Timeout: lifecycle.DefaultShutdownTimeout})
	if err != nil {
		return fmt.Errorf("stop %s first: %w", r.Member, err)
	}
	for _, m := range res.Members {
		if m.Answer == lifecycle.AnswerRejected || m.Answer == lifecycle.AnswerNone {
			why := m.Answer
			if m.Reason != "" {
				why += ": " + m.Reason
			}
			return exitError{code: ExitFailure, err: fmt.Errorf("%s did not shut down (%s), so nothing was landed: ask it to finish, then: paneteam land %s",
				r.Member, why, landTarget(r))}
		}
	}
	for deadline := time.Now().Add(lifecycle.DefaultShutdownTimeout); r.Running(); {
		if time.Now().After(deadline) {
			return exitError{code: ExitFailure, err: fmt.Errorf("%s agreed to shut down but its process %d still runs, so nothing was landed", r.Member, r.PID)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	fmt.Fprintf(env.Stderr, "paneteam: %s has shut down\n", r.Member)
	return nil
}
