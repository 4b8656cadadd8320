package cli

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/lockfile"
)

func reviewCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "review",
		Usage:     "show each teammate's work (commits, changes, whether it lands cleanly), one teammate's diff, or comment on it",
		ArgsUsage: "[NAME [PATH...]]",
		Description: `The review-and-land loop, from the working tree of the branch the work
should reach:

    paneteam review                      # one line per teammate with work
    paneteam review alice                # alice's change, through your git pager
    paneteam review alice --comment parser.go:42 "this drops the error"
    paneteam land alice                  # onto your branch; prints the undo

Without NAME: per teammate paneteam gave a worktree (found from its own
record in the state folder, so one that has ended and left the team is
still there), its branch, commits past the commit it started from,
uncommitted files, lines added and removed, whether it lands cleanly on
your branch as it is now, and which other teammates' branches it conflicts
with and in which files. Worked out by merging in memory (git merge-tree):
no working tree or index is touched.

With NAME: the change, committed work and uncommitted work marked apart,
as git diff shows it with your own settings (pager, colours, delta or
diff-so-fancy as core.pager); PATH... keeps to those paths, --stat gives a
diffstat.

--comment FILE:LINE TEXT (repeat the pair) sends NAME one message quoting
each commented line with two lines each side, and the comment, by send's
rules (as the lead, signed, in a team paneteam leads; under your own name
in a team Claude Code leads). A teammate that has left the team cannot be
told.

--compare A B shows how two teammates' branches differ, as git diff A B
would: two attempts at one task ('paneteam land A --drop B' then keeps
one).`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.BoolFlag{Name: "compare", Usage: "review --compare A B [PATH...]: how two teammates' branches differ (two attempts at one task)"},
			&ucli.BoolFlag{Name: "stat", Usage: "with NAME: a diffstat instead of the patch"},
			&ucli.StringSliceFlag{Name: "comment", Usage: "with NAME: FILE:LINE, the next argument its text (repeat the pair); sent as one message"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			v := readFlags(c)
			o := reviewOptions{Team: v.String("team"), Root: v.String("root"), Stat: v.Bool("stat"), Comments: v.StringSlice("comment"),
				JSON: v.Bool("json"), Compare: v.Bool("compare"), Args: c.Args().Slice()}
			return runReview(ctx, env, o)
		},
	}
}

type reviewOptions struct {
	Compare  bool
	Team     string
	Root     string
	Stat     bool
	Comments []string
	JSON     bool
	Args     []string
}

func runReview(ctx context.Context, env Env, o reviewOptions) error {
	lead, recs, err := leadAndRecords(ctx, env)
	if err != nil {
		return err
	}
	if len(o.Args) == 0 {
		if len(o.Comments) > 0 || o.Stat {
			return usagef("--comment and --stat go with a teammate: paneteam review NAME ...")
		}
		return reviewAll(ctx, env, lead, recs, o)
	}
	if o.Compare {
		return compareTwo(ctx, env, lead, recs, o)
	}
	r, err := findTeammate(recs, o.Team, o.Args[0])
	if err != nil {
		return err
	}
	if len(o.Comments) > 0 {
		return sendComments(ctx, env, r, o)
	}
	return showDiff(ctx, env, lead, r, o)
}

// reviewRow is one teammate as review --json prints it.
type reviewRow = land.Entry

func reviewAll(ctx context.Context, env Env, lead land.Lead, recs worktree.Records, o reviewOptions) error {
	list, errs := land.TeamRecords(recs, o.Team)
	for _, err := range errs {
		warnf(env, "%v", err)
	}
	rows, err := land.Review(ctx, lead, list)
	if err != nil {
		return err
	}
	if o.JSON {
		if rows == nil {
			rows = []reviewRow{}
		}
		return printJSON(env.Stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(env.Stdout, "no teammate has work to review")
		return nil
	}
	onto := lead.Branch
	if onto == "" {
		onto = "HEAD"
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "TEAMMATE\tBRANCH\tCOMMITS\tUNCOMMITTED\tLINES\tONTO %s\n", onto)
	for _, r := range rows {
		name := r.Name
		if r.Running {
			name += " (running)"
		}
		lands := "lands cleanly"
		if !r.Clean {
			lands = "conflicts: " + land.FileList(r.LeadConflicts, land.ListedFiles)
		}
		changed := fmt.Sprintf("+%d -%d", r.Added, r.Removed)
		if r.Binary > 0 {
			changed += fmt.Sprintf(", %d binary", r.Binary)
		}
		// File and branch names are the teammate's: shown, never obeyed.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", visible.Line(name), visible.Line(r.Branch), countOrUnknown(r.Ahead), countOrUnknown(r.Uncommitted), changed, visible.Line(lands))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if len(r.ConflictsWith) > 0 {
			fmt.Fprintf(env.Stdout, "%s conflicts with %s (files: %s)\n", visible.Line(r.Name),
				visible.Line(strings.Join(r.ConflictsWith, ", ")), visible.Line(land.FileList(r.ConflictFiles, land.ListedFiles)))
		}
	}
	return nil
}

// showDiff prints the teammate's change through the person's pager, as
// git would show it, or as JSON.
func showDiff(ctx context.Context, env Env, lead land.Lead, r worktree.Record, o reviewOptions) error {
	color, pager := land.ShowSettings(ctx, lead.Dir, env.StdoutTTY && !o.JSON)
	if _, noColor := env.Vars["NO_COLOR"]; noColor {
		color = false
	}
	d, err := land.TeammateDiff(ctx, r, land.DiffOptions{Stat: o.Stat, Paths: o.Args[1:], Color: color})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(env.Stdout, d)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: committed on %s since %s\n", r.Member, r.Branch, shortID(d.Base))
	b.WriteString(orDefault(d.Committed, "# (no committed change)\n"))
	if d.Uncommitted != "" || len(d.Untracked) > 0 {
		fmt.Fprintf(&b, "\n# %s: uncommitted in %s\n", r.Member, r.Path)
		b.WriteString(d.Uncommitted)
		for _, f := range d.Untracked {
			fmt.Fprintf(&b, "# untracked: %s\n", visible.Line(f))
		}
	}
	return page(env, pager, b.String())
}

// page shows text through the person's pager (git's own default
// LESS=FRX, so a short diff just prints), or prints it.
func page(env Env, pager, text string) error {
	if pager == "" {
		_, err := fmt.Fprint(env.Stdout, text)
		return err
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), env.Stdout, env.Stderr
	cmd.Env = env.Environ()
	if env.Getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if env.Getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("show the diff through your pager %q: %w", pager, err)
	}
	return nil
}

// sendComments pairs each --comment FILE:LINE with the next argument,
// its text, and sends them to the teammate as one message.
func sendComments(ctx context.Context, env Env, r worktree.Record, o reviewOptions) error {
	texts := o.Args[1:]
	if len(texts) != len(o.Comments) {
		return usagef("each --comment FILE:LINE takes its text as the next argument: %d --comment, %d texts (quote each text)", len(o.Comments), len(texts))
	}
	var cs []land.Comment
	for i, at := range o.Comments {
		file, line, err := land.ParseAt(at)
		if err != nil {
			return usagef("--comment %v", err)
		}
		cs = append(cs, land.Comment{File: file, Line: line, Text: texts[i]})
	}
	t, cfg, err := teammateTeam(ctx, env, o.Root, r)
	if err != nil {
		return err
	}
	msg, err := land.SendComments(ctx, callerOf(env), t, cfg, lockfile.Options{}, r, cs)
	if err != nil {
		return tellWords(err)
	}
	if o.JSON {
		return printJSON(env.Stdout, map[string]any{"to": r.Member, "team": r.Team, "comments": len(cs), "message": msg})
	}
	fmt.Fprintf(env.Stdout, "sent %s %d comment(s) in one message\n", r.Member, len(cs))
	return nil
}

// compareTwo shows git diff between two teammates' branches.
func compareTwo(ctx context.Context, env Env, lead land.Lead, recs worktree.Records, o reviewOptions) error {
	if len(o.Args) < 2 || len(o.Comments) > 0 {
		return usagef("--compare takes two teammates: paneteam review --compare A B [PATH...]")
	}
	a, err := findTeammate(recs, o.Team, o.Args[0])
	if err != nil {
		return err
	}
	b, err := findTeammate(recs, o.Team, o.Args[1])
	if err != nil {
		return err
	}
	color, pager := land.ShowSettings(ctx, lead.Dir, env.StdoutTTY && !o.JSON)
	if _, noColor := env.Vars["NO_COLOR"]; noColor {
		color = false
	}
	d, err := land.Compare(ctx, lead, a, b, land.DiffOptions{Stat: o.Stat, Paths: o.Args[2:], Color: color})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(env.Stdout, map[string]string{"a": a.Member, "b": b.Member, "diff": d})
	}
	return page(env, pager, fmt.Sprintf("# %s (%s) to %s (%s)\n%s", a.Member, a.Branch, b.Member, b.Branch, d))
}
