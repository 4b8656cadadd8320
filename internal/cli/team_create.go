package cli

import (
	"context"
	"fmt"
	"os"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
)

func teamCreateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "team-create",
		Usage:     "create a team (config.json, inboxes and task list) and print its final name",
		ArgsUsage: "NAME",
		Description: `Creates teams/<name>/config.json in Claude Code's layout with the lead
member "team-lead", and an empty task list under tasks/<name>/.

The name is made safe for every file kind ([a-z0-9-]: "My Team" becomes
"my-team"). If a team of that name exists, -2, -3, ... is appended; the final
name is printed, so scripts can capture it:

    team=$(paneteam team-create review)

The lead's process (its pid and start time) is recorded so that
'paneteam cleanup --orphans' can tell when the lead is gone. By default it is
the process of the tmux pane this runs in, else the parent shell.`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "what the team is for"},
			&ucli.IntFlag{Name: "leader-pid", Usage: "pid of the lead's process (default: this tmux pane's process, else the parent shell)"},
			budgetFlag("the team's spending limit in US dollars, for every Claude Code and agent CLI teammate spawn-pane starts in it ('paneteam budget' changes it): " + budgetHelp),
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readTeamCreateOptions(c)
			if err != nil {
				return err
			}
			return runTeamCreate(ctx, env, o)
		},
	}
}

type teamCreateOptions struct {
	Root        string // --root as given; "" is the default root
	Name        string
	Description string
	LeaderPID   int // 0: the default (defaultLeaderPID)
	Budget      float64
	JSON        bool
}

func readTeamCreateOptions(c *ucli.Command) (teamCreateOptions, error) {
	if c.NArg() != 1 {
		return teamCreateOptions{}, usagef("team-create takes one NAME, got %d arguments", c.NArg())
	}
	return teamCreateOptions{
		Root: readFlags(c).String("root"), Name: c.Args().First(), Description: readFlags(c).String("description"),
		LeaderPID: readFlags(c).Int("leader-pid"), Budget: readFlags(c).Float("budget"), JSON: readFlags(c).Bool("json"),
	}, checkBudget(readFlags(c).Float("budget"))
}

func runTeamCreate(ctx context.Context, env Env, o teamCreateOptions) error {
	root, err := env.root(o.Root)
	if err != nil {
		return err
	}
	pid := o.LeaderPID
	if pid == 0 {
		pid = defaultLeaderPID(ctx, env)
	}
	start, err := proc.StartTime(pid)
	if err != nil {
		return fmt.Errorf("--leader-pid %d: %w (give the pid of a running process)", pid, err)
	}
	cwd, _ := os.Getwd()
	t, cfg, err := team.Create(root, o.Name, team.CreateOptions{
		Description: o.Description,
		Cwd:         cwd,
		LeaderPID:   pid,
		LeaderStart: start,
	})
	if err != nil {
		return err
	}
	if o.Budget > 0 {
		if err := setTeamBudget(env, t, o.Budget); err != nil {
			return err
		}
	}
	if o.JSON {
		return printJSON(env.Stdout, map[string]string{
			"team_name":      cfg.Name,
			"team_file_path": t.ConfigPath(),
			"lead_agent_id":  cfg.LeadAgentID,
		})
	}
	_, err = fmt.Fprintln(env.Stdout, cfg.Name)
	return err
}
