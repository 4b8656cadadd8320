package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// runPR is `land NAME --pr`: the teammate's branch pushed to your remote
// and a pull request opened with gh; nothing lands here.
func runPR(ctx context.Context, env Env, o landOptions) error {
	if err := prFlagsAlone(o); err != nil {
		return err
	}
	if len(o.Args) != 1 {
		return usagef("give the teammate whose branch to push: paneteam land NAME --pr ('paneteam review' lists who has work)")
	}
	lead, recs, err := leadAndRecords(ctx, env)
	if err != nil {
		return err
	}
	r, err := findTeammate(recs, o.Team, o.Args[0])
	if err != nil {
		return err
	}
	if o.Stop && r.Running() {
		if err := stopTeammate(ctx, env, o, r); err != nil {
			return err
		}
	}
	report, from := teammateReport(ctx, env, o, r)
	gh, _ := program.Find("gh", env.Getenv("PATH"))
	res, err := land.PullRequest(ctx, land.PRRequest{Lead: lead, Record: r, Records: recs, Remote: o.Remote,
		IncludeUncommitted: o.IncludeUncommitted, Report: report, Title: o.Message, GH: gh, Env: env.Environ()})
	var ghErr *land.GHError
	if err != nil && !errors.As(err, &ghErr) {
		err = prRefused(err, lead, r)
		if res != nil && res.Committed != "" {
			err = exitError{code: ExitFailure, err: fmt.Errorf("%w\n%s", err, committedWords(r, res.Committed)+", and that commit stays on its branch")}
		}
		return err
	}
	if o.JSON {
		if err := printJSON(env.Stdout, res); err != nil {
			return err
		}
	} else {
		printPR(env, lead, r, res, from, gh != "")
	}
	if ghErr != nil {
		return exitError{code: ExitFailure, err: fmt.Errorf("%w\nopen it by hand: %s%s", err, ghCommand(res), orCompare(res))}
	}
	return nil
}

// prFlagsAlone refuses what means a land here, not a pull request.
func prFlagsAlone(o landOptions) error {
	for _, f := range []struct {
		set  bool
		name string
	}{{o.All, "--all"}, {o.Mode != "", "--" + string(o.Mode)}, {o.Drop != "", "--drop"}, {o.Ask, "--ask"},
		{o.Force, "--force"}, {o.Test != "", "--test"}, {o.DryRun, "--dry-run"}} {
		if f.set {
			return usagef("--pr pushes the teammate's branch and opens a pull request, landing nothing here, so %s does not go with it: "+
				"land it with 'paneteam land NAME %s', or open the request with 'paneteam land NAME --pr'", f.name, f.name)
		}
	}
	return nil
}

// teammateReport is the latest message r's teammate sent its lead (read
// only: nothing is marked read), and the lead's name and when it was
// sent, for saying where the title came from.
func teammateReport(ctx context.Context, env Env, o landOptions, r worktree.Record) (text, from string) {
	t, cfg, err := teamScope{Root: orDefault(o.Root, r.Root), Team: r.Team}.open(ctx, env)
	if err != nil {
		return "", ""
	}
	lead := cfg.LeadAgentName()
	m, ok, err := land.Report(t, lead, r.Member)
	if err != nil {
		warn(env, fmt.Errorf("%s's report is left out: %w", r.Member, err))
		return "", ""
	}
	if !ok {
		return "", ""
	}
	return m.Text, fmt.Sprintf("its last message to %s, %s", lead, m.Timestamp)
}

// titleFrom words where the title came from.
func titleFrom(res *land.PRResult, report string) string {
	switch res.TitleFrom {
	case "given":
		return "--message"
	case "report":
		return report
	case "commit":
		return "its commit's subject"
	}
	return "its commits"
}

func printPR(env Env, lead land.Lead, r worktree.Record, res *land.PRResult, from string, haveGH bool) {
	out := env.Stdout
	if res.Committed != "" {
		fmt.Fprintln(out, committedWords(r, res.Committed))
	}
	onto := orDefault(lead.Branch, "HEAD")
	fmt.Fprintf(out, "pushed %s to %s: %d commit(s) %s lacks\n", r.Branch, res.Remote, len(res.Commits), onto)
	fmt.Fprintf(out, "title (from %s): %s\n", titleFrom(res, from), visible.Line(res.Title))
	if len(res.Conflicts) > 0 {
		fmt.Fprintf(out, "note: it conflicts with %s as it is now, in %s; the request is opened anyway\n", onto, visible.Line(strings.Join(res.Conflicts, ", ")))
	}
	switch {
	case res.Existing:
		fmt.Fprintf(out, "a pull request for %s is open already: %s\n", r.Branch, visible.Line(res.URL))
	case res.URL != "":
		fmt.Fprintf(out, "opened a pull request: %s\n", visible.Line(res.URL))
	case !haveGH:
		fmt.Fprintf(out, "gh is not installed (https://cli.github.com), so no pull request was opened; open it with:\n  %s\n", ghCommand(res))
		if res.CompareURL != "" {
			fmt.Fprintf(out, "or in a browser: %s\n", res.CompareURL)
		}
	}
	fmt.Fprintf(out, "nothing has landed: your branch, index and working tree are as they were; %s's worktree %s and branch %s are kept\n", r.Member, r.Path, r.Branch)
}

// ghCommand is gh's call as a person would type it, the body given as
// an argument: each text quoted for the shell, the teammate's by the
// visible rule's $'…' form (which a shell reads back as the same text).
func ghCommand(res *land.PRResult) string {
	var words []string
	for i := 0; i < len(res.GHArgs); i++ {
		a := res.GHArgs[i]
		if a == "--body-file" && i+1 < len(res.GHArgs) && res.GHArgs[i+1] == "-" {
			a, i = "--body="+res.Body, i+1
		}
		words = append(words, shellWord(a))
	}
	return strings.Join(words, " ")
}

func orCompare(res *land.PRResult) string {
	if res.CompareURL == "" {
		return ""
	}
	return "\nor in a browser: " + res.CompareURL
}

// shellWord is s quoted for a POSIX shell, in $'…' form when it holds a
// character a terminal would act on.
func shellWord(s string) string {
	if v := visible.Line(s); v != s {
		return v
	}
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// committedWords says the commit --include-uncommitted made.
func committedWords(r worktree.Record, commit string) string {
	return fmt.Sprintf("committed %s's uncommitted files on %s as %s, in your name", r.Member, r.Branch, shortID(commit))
}

// prRefused words a pull request's refusal with the command to run next.
func prRefused(err error, lead land.Lead, r worktree.Record) error {
	again := "paneteam land " + landTarget(r) + " --pr"
	var (
		none   *land.NothingToPushError
		rej    *land.PushRejectedError
		hook   *land.PushHookError
		remote *land.NoRemoteError
		bad    *land.UnknownRemoteError
	)
	var next string
	switch {
	case errors.As(err, &none) && none.Held:
		next = fmt.Sprintf("its work is on %s already; to remove its worktree: paneteam land %s", none.Onto, landTarget(r))
	case errors.As(err, &none):
		next = fmt.Sprintf("ask it to commit its work (paneteam send --team %s --to %s \"commit your work\"), then: %s", r.Team, r.Member, again)
	case errors.As(err, &rej) && rej.Diverged():
		next = fmt.Sprintf("%[1]s's %[2]s has commits the teammate's branch lacks: look at them (git fetch %[1]s %[2]s && git log %[2]s..FETCH_HEAD), "+
			"then ask %[3]s to bring them into its branch (git pull %[1]s %[2]s in its worktree) and run this again, "+
			"or, once fetched, replace them with its branch (git push --force-with-lease %[1]s %[2]s)",
			rej.Remote, rej.Branch, r.Member)
	case errors.As(err, &rej):
		next = "git's output:\n" + rej.Output + "\nfix what the remote reports, then: " + again
	case errors.As(err, &hook):
		next = "nothing was pushed; fix what the hook reports, then: " + again
	case errors.As(err, &remote):
		next = "add the remote (git remote add origin URL), or name one: " + again + " --remote NAME"
		if len(remote.Remotes) == 0 {
			next = "add it: git remote add origin URL, then: " + again
		}
	case errors.As(err, &bad):
		next = "name one of the repository's remotes (git remote -v): " + again + " --remote NAME"
	default:
		return landRefused(err, lead, r, again)
	}
	return exitError{code: ExitFailure, err: fmt.Errorf("%w\n%s", err, next)}
}
