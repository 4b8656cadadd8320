package cli

import (
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/lockfile"
)

func globalFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{
			Name:    "root",
			Usage:   "folder holding teams/ and tasks/ (default: $CLAUDE_CONFIG_DIR, else ~/.claude)",
			Sources: ucli.EnvVars("PANETEAM_ROOT"),
		},
		&ucli.DurationFlag{
			Name:    "lock-timeout",
			Usage:   "how long to wait for another process's lock on a team file before giving up",
			Value:   lockfile.DefaultTimeout,
			Sources: ucli.EnvVars("PANETEAM_LOCK_TIMEOUT"),
		},
	}
}

// teamFlag is the --team flag every team command takes.
func teamFlag() ucli.Flag {
	return &ucli.StringFlag{
		Name:    "team",
		Aliases: []string{"t"},
		Usage:   "team name (as given to team-create; case and punctuation are forgiven); may be left out inside a Claude Code session or its tmux pane",
		Sources: ucli.EnvVars("PANETEAM_TEAM"),
	}
}

// jsonFlag is the --json flag of every command that prints data.
func jsonFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts instead of text for people"}
}

// readLock is the lock configuration of a command.
func readLock(c *ucli.Command) lockfile.Options {
	return lockfile.Options{Timeout: readFlags(c).Duration("lock-timeout")}
}

// settle is a small pause used only by polling loops with no event to wait on.
const settle = 50 * time.Millisecond

// layoutFlags are --layout and --lead-percent, for commands that place a
// pane in the team's window.
func layoutFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "layout", Usage: "tmux layout: main-vertical (lead on the left), tiled, or windows (a window per teammate); kept for the team's later re-layouts " +
			"(default: the team's, else main-vertical beside a lead and tiled without one)"},
		&ucli.IntFlag{Name: "lead-percent", Usage: "width of the lead's column with main-vertical, in percent; kept for the team (default: the team's, else 30)"},
	}
}

// layoutChoice is what --layout and --lead-percent ask for, as given.
type layoutChoice struct {
	Layout      *string
	LeadPercent *int
}

func readLayout(c *ucli.Command) layoutChoice {
	var lc layoutChoice
	if readFlags(c).IsSet("layout") {
		v := readFlags(c).String("layout")
		lc.Layout = &v
	}
	if readFlags(c).IsSet("lead-percent") {
		v := readFlags(c).Int("lead-percent")
		lc.LeadPercent = &v
	}
	return lc
}

// over is the layout asked for over the team's kept one
// (backend.TeamLayout): each flag given overrides it, and keep says
// whether one was given, so that the choice is kept in turn.
func (lc layoutChoice) over(kept layout.Policy) (pol layout.Policy, keep bool, err error) {
	pol = kept
	if lc.Layout != nil {
		if pol.Kind, err = layout.ParseKind(*lc.Layout); err != nil {
			return pol, false, usagef("--layout: %v", err)
		}
		keep = true
	}
	if lc.LeadPercent != nil {
		pol.LeadPercent = *lc.LeadPercent
		keep = true
	}
	if err := pol.Validate(); err != nil {
		return pol, false, usagef("--lead-percent: %v", err)
	}
	return pol, keep, nil
}
