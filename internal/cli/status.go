package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// Pane liveness as status reports it.
const (
	paneAlive   = teamwatch.PaneAlive
	paneDead    = teamwatch.PaneDead
	paneUnknown = teamwatch.PaneUnknown
)

func statusCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "status",
		Usage: "show teams, their members, who is busy or idle, and unread messages",
		Description: `Lists every team under the root (or only --team): who leads it (a Claude
Code session, by config.json's leadProcess, or paneteam) and whether that
lead process is alive (for Claude Code, by Claude Code's own test: a lead
that cannot be proven dead counts as alive); then each member: what it
runs and who started it ("claude (pane)": Claude Code's own teammate;
"codex (paneteam)": one paneteam started; "codex (Claude's, pane)": one
Claude Code's lead started through paneteam; "paneteam" alone: a plain
command), its backend, its state, whether its pane or process still runs, and how many
unread messages wait in its inbox. The state is the one the dashboard,
monitor and wait show: idle after its latest idle notification unless a
message came or went since (without one, config.json's isActive decides),
gone when its pane is dead.
A Claude Code teammate's pane is looked for on Claude's tmux server (from
the lead's environment, else $TMUX).

TOKENS are what each member's model reported: input/output/cache
read/cache write (from its CLI's own records: Claude Code's transcript,
Codex's, Gemini CLI's, OpenCode's through paneteam's plugin); COST is an
estimate at the prices of @pydantic/genai-prices shipped with paneteam,
under your own in ~/.config/paneteam/prices.json. "?" is unknown (a
teammate on another host, a plain command, a model with no price): the
lines under the table say why. A team where no member's spending can be
known (plain commands only) has no TOKENS or COST column and no such
lines. --json has the same in each member's "usage" (null for unknown,
never 0, and why) and the team's total. A member held
to a budget (spawn-pane --budget, claude --budget, a team's budget) has a
"budget" line under the table, and in --json a "budget" object: usd,
spentUSD, state (ok, warned at 80%, stopped over budget) and why.
--ended shows what teams already cleaned up spent.

A member with a git worktree of its own (spawn-pane --worktree, claude
--worktree) has its BRANCH and, as 'paneteam review' counts it, its WORK:
commits ahead, uncommitted files, and whether it lands cleanly on the
branch of the working tree you run status in ("ahead 2, uncommitted 1,
lands cleanly on main", or the files in conflict); --json's
"branchState". The status line (--format tmux) runs no git for it.

    paneteam status
    paneteam status --team review --json

A member with a permission, sandbox or plan request waiting for the lead
shows as NEEDS YOU (with how many): 'paneteam requests' lists them,
'paneteam approve' and 'deny' answer them.

--format tmux prints one short segment per team for tmux's status line:
name, busy and idle counts, dead panes (each teammate counted once, in its
state), "!N need you" when requests wait for you, the lead's unread
messages, and what the team has spent so far, once it has spent
something ("$1.20+": some member's spending is unknown and left out).

    set -g status-right "#(paneteam status --format tmux --panes '` + tmux.StatusPanesFormat + `')"
    set -g status-interval 5

--panes is what tmux expands there: the panes of the server that runs the
status line ($TMUX), so that a refresh asks that server nothing. Without
it, status asks each tmux server once.

--format iterm2 sets the iTerm2 user variable paneteam_needs of the session
it prints in to "!N need you" (or to nothing) for a badge or status bar:
run it from your shell prompt (examples/iterm2/README.md).`,
		Flags: []ucli.Flag{
			teamFlag(),
			jsonFlag(),
			&ucli.StringFlag{Name: "format", Usage: "text; tmux for a status-line segment; iterm2 to set the lead's badge", Value: "text"},
			&ucli.BoolFlag{Name: "ended", Usage: "show what teams cleaned up spent, as kept when they ended (newest first)"},
			&ucli.StringFlag{Name: "panes", Usage: "with --format tmux: the panes of the status line's tmux server, as tmux expands '" + tmux.StatusPanesFormat + "' (so paneteam asks that server nothing)"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readStatusOptions(c)
			if err != nil {
				return err
			}
			return runStatus(ctx, env, o)
		},
	}
}

// statusOptions are status's flags.
type statusOptions struct {
	Scope  teamScope // no --team: every team under the root
	JSON   bool
	Format string // text, tmux or iterm2
	Ended  bool   // the spending kept of ended teams
	// Panes: the status line's own server's panes, as tmux expanded
	// tmux.StatusPanesFormat ("" when not given).
	Panes string
}

func readStatusOptions(c *ucli.Command) (statusOptions, error) {
	if c.NArg() > 0 {
		return statusOptions{}, usagef("status takes no arguments (got %q): name a team with --team", c.Args().First())
	}
	// One pass over the flags (readFlags): the status line reads these on
	// every refresh.
	v := readFlags(c)
	o := statusOptions{Scope: v.teamScope(), JSON: v.Bool("json"), Format: v.String("format"), Ended: v.Bool("ended"), Panes: v.String("panes")}
	if o.Format != "text" && o.Format != "tmux" && o.Format != "iterm2" {
		return o, usagef("--format %q: use text, tmux or iterm2", o.Format)
	}
	if v.IsSet("panes") && (o.Format != "tmux" || o.JSON) {
		return o, usagef("--panes is what tmux's status line passes with --format tmux: leave it out here")
	}
	return o, nil
}

func runStatus(ctx context.Context, env Env, o statusOptions) error {
	if o.Ended {
		return writeEnded(env, o)
	}
	teams, err := loadTeams(ctx, env, o.Scope)
	if err != nil {
		return err
	}
	if o.Format == "iterm2" && !o.JSON {
		return writeITerm2Status(ctx, env.Stdout, teams)
	}
	opts := stateOptions(env)
	opts.MembersOnly = true
	opts.NoBranches = o.Format != "text" && !o.JSON
	opts.NoResumable = opts.NoBranches
	// What each worktree holds runs git: status itself shows it, the
	// status line (NoBranches) never does.
	if opts.BranchWork = !opts.NoBranches; opts.BranchWork {
		if cwd, err := os.Getwd(); err == nil {
			opts.LeadDir = cwd
		}
	}
	// The status line runs every few seconds as a new process: what it
	// counted of an inbox that has not changed since is kept on disk.
	if state, err := env.stateDir(); err == nil {
		opts.MemoDir = filepath.Join(state, teamwatch.MemoFolder)
		opts.Cost = costReader(env, state)
	}
	opts.Census = backend.NewCensus(*opts.Backend) // one question per tmux server for every team
	if o.Panes != "" {
		givenPanes(env, opts.Census, o.Panes)
	}
	var out []teamStatus
	for _, tl := range teams {
		out = append(out, statusOf(ctx, opts, tl))
	}
	if o.Format == "tmux" && !o.JSON {
		return writeTmuxStatus(env.Stdout, out) // statusline.go
	}
	if o.JSON {
		if out == nil {
			out = []teamStatus{}
		}
		return printJSON(env.Stdout, out)
	}
	// Opening --team warned of its unreadable member rows already.
	warned := map[string]bool{}
	for _, tl := range teams {
		if o.Scope.Team != "" && tl.cfg != nil {
			for _, sk := range tl.cfg.SkippedMembers() {
				warned[sk.Error()] = true
			}
		}
	}
	for _, ts := range out {
		for _, p := range ts.Problems {
			if !warned[p] {
				warn(env, errors.New(p))
			}
		}
	}
	return writeStatus(env, out)
}

type loadedTeam struct {
	team team.Team
	cfg  *team.Config
	err  error
}

// loadTeams opens --team, or every team under the root; a team whose
// config does not parse is reported, not fatal.
func loadTeams(ctx context.Context, env Env, s teamScope) ([]loadedTeam, error) {
	if s.Team != "" {
		t, cfg, err := s.open(ctx, env)
		if err != nil {
			return nil, err
		}
		return []loadedTeam{{team: t, cfg: cfg}}, nil
	}
	root, err := env.root(s.Root)
	if err != nil {
		return nil, err
	}
	names, err := team.List(root)
	if err != nil {
		return nil, err
	}
	var out []loadedTeam
	for _, n := range names {
		t, cfg, err := team.Open(root, n)
		if err != nil {
			t = team.Team{Root: root, Name: n}
		}
		out = append(out, loadedTeam{team: t, cfg: cfg, err: err})
	}
	return out, nil
}

// teamStatus is a team as status shows it: teamwatch's snapshot, or why
// the team could not be read.
type teamStatus struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Backend     string `json:"backend,omitempty"`
	// Lead is who leads the team (Claude Code or paneteam) and whether
	// that process is alive (Claude Code's own test for a Claude lead).
	Lead *team.Lead `json:"lead,omitempty"`
	// LeadInbox is set when a live Claude Code lead has messages waiting
	// that it will not read until it has a teammate of its own.
	LeadInbox *teamwatch.LeadInbox `json:"leadInbox,omitempty"`
	// Resumable is set when the team's lead and every teammate's pane
	// went away without a shutdown: 'paneteam resume' brings it back.
	Resumable *teamwatch.Resumable `json:"resumable,omitempty"`
	Members   []teamwatch.Member   `json:"members"`
	// Usage is the team's total spending: the sums of the members whose
	// spending is known (partial when some is not).
	Usage *cost.Cost `json:"usage,omitempty"`
	// Problems are what could not be read (an inbox entry, a member row,
	// a file that is not what it should be); the rest was read.
	Problems []string `json:"problems,omitempty"`
	Error    string   `json:"error,omitempty"`
}

func statusOf(ctx context.Context, opts teamwatch.Options, tl loadedTeam) teamStatus {
	ts := teamStatus{Name: tl.team.Name, Members: []teamwatch.Member{}}
	if tl.err != nil {
		ts.Error = tl.err.Error()
		return ts
	}
	s := teamwatch.TakeLoaded(ctx, tl.team, tl.cfg, opts)
	ts.Description, ts.Backend, ts.Lead, ts.LeadInbox, ts.Members = s.Description, s.Backend, s.Lead, s.LeadInbox, s.Members
	ts.Resumable = s.Resumable
	ts.Problems, ts.Usage = s.Problems, s.Usage
	return ts
}

func writeStatus(env Env, teams []teamStatus) error {
	if len(teams) == 0 {
		fmt.Fprintln(env.Stdout, "no teams; create one with: paneteam team-create NAME")
		return nil
	}
	for i, ts := range teams {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		// Names, backends and descriptions are in config.json, which any
		// member can write: shown, never interpreted (visible.Line).
		head := visible.Line(ts.Name)
		if ts.Backend != "" {
			head += " (" + visible.Line(ts.Backend) + ")"
		}
		if ts.Description != "" {
			head += ": " + visible.Line(ts.Description)
		}
		fmt.Fprintln(env.Stdout, head)
		if ts.Error != "" {
			fmt.Fprintf(env.Stdout, "  cannot read this team: %s\n", visible.Line(ts.Error))
			continue
		}
		if ts.Lead != nil {
			fmt.Fprintf(env.Stdout, "  lead: %s\n", leadLine(*ts.Lead))
		}
		if r := ts.Resumable; r != nil {
			fmt.Fprintf(env.Stdout, "  resumable: its lead and teammates' panes went away; bring back %s with: %s\n",
				visible.Line(strings.Join(r.Members, ", ")), visible.Line(r.Command))
		}
		if w := ts.LeadInbox; w != nil {
			fmt.Fprintf(env.Stdout, "  note: %d message(s) to team-lead unread: %s\n", w.Unread, teamwatch.LeadInboxNote)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		// A BRANCH column only for a team with worktrees.
		branchCol := slices.ContainsFunc(ts.Members, func(m teamwatch.Member) bool { return m.Branch != "" })
		// TOKENS and COST only when some member's spending is known: a
		// team of plain commands would have columns of "?" alone.
		spendCols := spendingKnown(ts.Members)
		head = "  NAME\tRUN BY\tSTATE\tBACKEND\tPANE\tUNREAD"
		if spendCols {
			head += "\tTOKENS\tCOST"
		}
		workCol := slices.ContainsFunc(ts.Members, func(m teamwatch.Member) bool { return m.Work != nil })
		if branchCol {
			head += "\tBRANCH"
		}
		if workCol {
			head += "\tWORK"
		}
		fmt.Fprintln(tw, head)
		for _, m := range ts.Members {
			// A teammate on another machine is name@host (the host from
			// the lead's own record, never config.json).
			bend := orDefault(m.Backend, "-")
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s", visible.Line(m.Label()), visible.Line(m.Runs()), visible.Line(stateWord(m)),
				visible.Line(bend), visible.Line(paneWord(m)), unreadWord(m))
			if spendCols {
				fmt.Fprintf(tw, "\t%s\t%s", tokensWord(m.Usage), usdWord(m.Usage))
			}
			if branchCol {
				fmt.Fprintf(tw, "\t%s", visible.Line(orDefault(m.Branch, "-")))
			}
			if workCol {
				fmt.Fprintf(tw, "\t%s", workWord(m.Work))
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		writeCostNotes(env.Stdout, ts.Usage, ts.Members)
		writeBudgets(env.Stdout, ts.Members)
	}
	return nil
}

// workWord is what a member's worktree holds and whether it lands, as
// review says it: "ahead 2, uncommitted 1, lands cleanly on main".
func workWord(w *teamwatch.BranchWork) string {
	if w == nil {
		return "-"
	}
	s := fmt.Sprintf("ahead %s, uncommitted %s, ", countOrUnknown(w.Ahead), countOrUnknown(w.Uncommitted))
	if w.Clean {
		s += "lands cleanly on " + w.Onto
	} else {
		s += "conflicts on " + w.Onto + " (" + strings.Join(w.LeadConflicts, ", ") + ")"
	}
	if len(w.ConflictsWith) > 0 {
		s += "; conflicts with " + strings.Join(w.ConflictsWith, ", ")
	}
	return visible.Line(s)
}

// leadLine says who leads and whether that process runs.
func leadLine(l team.Lead) string {
	who := map[string]string{team.LedByClaude: "Claude Code", team.LedByPaneteam: "paneteam"}[l.By]
	if who == "" {
		return "unknown (" + visible.Line(l.Why) + ")"
	}
	line := fmt.Sprintf("%s, process %d, %s", who, l.PID, l.State)
	if l.OtherPIDSpace {
		line += " (in another pid namespace: cannot be proven dead)"
	}
	return line
}

// stateWord is a member's state (teamwatch.Decide); "NEEDS YOU" (in
// capitals, read without colour) when it waits for the lead's answer
// ('paneteam requests' lists what it asks) or, an agent CLI, for the
// person's approval in its own pane.
func stateWord(m teamwatch.Member) string {
	switch {
	case m.Waiting > 0 && m.Asks != "":
		return fmt.Sprintf("NEEDS YOU (%d, and in its pane)", m.Waiting)
	case m.Asks != "":
		return "NEEDS YOU (in its pane)"
	case m.NeedsYou:
		return fmt.Sprintf("NEEDS YOU (%d)", m.Waiting)
	}
	return string(m.State)
}

// needs counts what m waits for: the requests waiting for the lead, and a
// dialog in its pane.
func needs(m teamwatch.Member) int {
	n := m.Waiting
	if m.Asks != "" {
		n++
	}
	return n
}

func paneWord(m teamwatch.Member) string {
	if m.PaneID == "" || m.PaneID == team.InProcessPaneID {
		return m.Pane
	}
	return m.PaneID + " " + m.Pane
}

func unreadWord(m teamwatch.Member) string {
	if m.Unread < 0 {
		return "?"
	}
	return fmt.Sprint(m.Unread)
}

// writeITerm2Status sets the iTerm2 user variable paneteam_needs to "!N
// need you", N the requests waiting for the lead and the dialogs in agent
// CLIs' panes in every team listed, or to nothing. Only the count is printed, as base64 in the escape sequence.
func writeITerm2Status(ctx context.Context, w io.Writer, teams []loadedTeam) error {
	n := 0
	for _, tl := range teams {
		if tl.err != nil {
			continue
		}
		for _, m := range teamwatch.TakeLoaded(ctx, tl.team, tl.cfg, teamwatch.Options{MembersOnly: true}).Members {
			n += needs(m)
		}
	}
	v := ""
	if n > 0 {
		v = fmt.Sprintf("!%d need you", n)
	}
	_, err := io.WriteString(w, iterm2.SetUserVar(iterm2.NeedsVar, v))
	return err
}
