package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// queueRow is the merge queue as --json prints it.
type queueRow struct {
	Onto string `json:"onto"`
	*land.QueueResult
	Error string `json:"error,omitempty"`
}

func runQueue(ctx context.Context, env Env, o landOptions) error {
	if len(o.Args) > 0 {
		return usagef("--all lands every teammate with work: give no NAME")
	}
	lead, recs, err := leadAndRecords(ctx, env)
	if err != nil {
		return err
	}
	list, errs := land.TeamRecords(recs, o.Team)
	for _, err := range errs {
		warnf(env, "%v", err)
	}
	res, err := land.Queue(ctx, land.QueueRequest{Lead: lead, Records: list, Store: recs, Mode: o.Mode, Test: o.Test, DryRun: o.DryRun})
	if err != nil {
		return landRefused(err, lead, worktree.Record{}, "paneteam land --all")
	}
	if !o.DryRun {
		tellSkipped(ctx, env, o, lead, res)
	}
	if o.JSON {
		row := queueRow{Onto: lead.Branch, QueueResult: res}
		if res.Err != nil {
			row.Error = res.Err.Error()
		}
		if err := printJSON(env.Stdout, row); err != nil {
			return err
		}
		if res.Err != nil {
			return queueRefused(res.Err, lead)
		}
		return nil
	}
	if len(res.Items) == 0 {
		fmt.Fprintln(env.Stdout, "no teammate has work to land")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEAMMATE\tBRANCH\tOUTCOME\tDETAIL")
	for _, it := range res.Items {
		detail := land.FileList(it.Files, land.ListedFiles)
		if it.Output != "" {
			detail = firstLine(it.Output)
		}
		if it.Kept != "" {
			detail = "worktree kept: " + it.Kept
		}
		// A test's output, a hook's, file names: the teammate's or its
		// tools' text, shown as text.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", visible.Line(it.Name), visible.Line(it.Branch), it.Outcome, visible.Line(detail))
	}
	tw.Flush()
	switch {
	case res.Err != nil:
		return queueRefused(res.Err, lead)
	case res.Moved:
		fmt.Fprintf(env.Stdout, "%s moved %s..%s\nundo: %s\n", lead.Branch, shortID(res.Before), shortID(res.After), res.Undo)
	case o.DryRun:
		fmt.Fprintln(env.Stdout, "dry run: nothing changed")
	}
	return nil
}

// queueRefused words the queue's move, refused at its end, as a single
// land's refusal is worded: the problem and the command to run next.
func queueRefused(err error, lead land.Lead) error {
	var sub *land.SubmoduleError
	if errors.As(err, &sub) {
		from := sub.From
		if from == "" {
			from = "REPOSITORY-THAT-HAS-IT"
		}
		return exitError{code: ExitFailure, err: fmt.Errorf("nothing of yours moved: %w\nfetch the commit into your submodule (%s), then: paneteam land --all",
			err, submoduleFetch(sub, from))}
	}
	var ex exitError
	if errors.As(landRefused(err, lead, worktree.Record{}, "paneteam land --all"), &ex) {
		err = ex.err
	}
	return exitError{code: ExitFailure, err: fmt.Errorf("nothing of yours moved: %w", err)}
}

// teammateFiles is how many conflicting files a message to a teammate
// names; its own `git merge` lists them all.
const teammateFiles = 50

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// tellSkipped tells each teammate the queue skipped for a conflict, a
// hook or the test why, while it is still a member; one that cannot be
// told is only a warning.
func tellSkipped(ctx context.Context, env Env, o landOptions, lead land.Lead, res *land.QueueResult) {
	for _, it := range res.Items {
		var msg string
		switch it.Outcome {
		case land.Conflict:
			msg = fmt.Sprintf("Your branch %s was not landed: it conflicts with %s in: %s.\nPlease run `git merge %s` in your worktree, resolve those files, commit, and report back to me.",
				it.Branch, lead.Branch, land.FileList(it.Files, teammateFiles), land.ShellQuote(lead.Branch))
		case land.TestsFailed, land.HookFailed:
			msg = fmt.Sprintf("Your branch %s was not landed on %s: %s failed. The end of its output:\n\n%s\n\nPlease fix it in your worktree, commit, and report back to me.",
				it.Branch, lead.Branch, strings.TrimSuffix(string(it.Outcome), " failed"), it.Output)
		default:
			continue
		}
		if err := tellTeammate(ctx, env, o.Root, it.Record, msg, "your branch was not landed: "+string(it.Outcome)); err != nil {
			warnf(env, "%s was not told: %v", it.Name, err)
		}
	}
}
