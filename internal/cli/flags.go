package cli

import (
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

func globalFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{
			Name:    "root",
			Usage:   "folder holding teams/ and tasks/ (default: $CLAUDE_CONFIG_DIR, else ~/.claude)",
			EnvVars: []string{"PANETEAM_ROOT"},
		},
		&ucli.DurationFlag{
			Name:    "lock-timeout",
			Usage:   "how long to wait for another process's lock on a team file before giving up",
			Value:   lockfile.DefaultTimeout,
			EnvVars: []string{"PANETEAM_LOCK_TIMEOUT"},
		},
	}
}

// teamFlag is the --team flag every team command takes.
func teamFlag() ucli.Flag {
	return &ucli.StringFlag{
		Name:    "team",
		Aliases: []string{"t"},
		Usage:   "team name (as given to team-create; case and punctuation are forgiven)",
		EnvVars: []string{"PANETEAM_TEAM"},
	}
}

// jsonFlag is the --json flag of every command that prints data.
func jsonFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts instead of text for people"}
}

// rootOf resolves the team root of a command.
func rootOf(c *ucli.Context, env Env) (string, error) {
	return team.Root(c.String("root"), env.Getenv)
}

// lockOpts is the lock configuration of a command.
func lockOpts(c *ucli.Context) lockfile.Options {
	return lockfile.Options{Timeout: c.Duration("lock-timeout")}
}

// openTeam opens the team named by --team.
func openTeam(c *ucli.Context, env Env) (team.Team, *team.Config, error) {
	name := c.String("team")
	if name == "" {
		return team.Team{}, nil, usagef("no team given: pass --team NAME or set PANETEAM_TEAM")
	}
	root, err := rootOf(c, env)
	if err != nil {
		return team.Team{}, nil, err
	}
	return team.Open(root, name)
}

// settle is a small pause used only by polling loops with no event to wait on.
const settle = 50 * time.Millisecond
