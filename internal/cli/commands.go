package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"
)

// commands lists every subcommand, one constructor per file.
func commands(env Env) []*ucli.Command {
	return []*ucli.Command{
		teamCreateCommand(env),
		spawnPaneCommand(env),
		sendCommand(env),
		inboxCommand(env),
		inboxWatchCommand(env),
		statusCommand(env),
		taskCommand(env),
		killPaneCommand(env),
		hideCommand(env),
		withRequestShow(env, showCommand(env)),
		attachCommand(env),
		logsCommand(env),
		teammateCommand(env),
		shutdownCommand(env),
		cleanupCommand(env),
		iterm2Command(env),
		demoCommand(env),
		hostCommand(env),
		requestsCommand(env),
		approveCommand(env),
		denyCommand(env),
		monitorCommand(env),
		waitCommand(env),
		promptCommand(env),
		dashboardCommand(env),
	}
}

// pending stands for a command whose work is in progress.
func pending(name, issue string) *ucli.Command {
	return &ucli.Command{
		Name:   name,
		Usage:  "(in progress, " + issue + ")",
		Hidden: true,
		Action: func(*ucli.Context) error { return fmt.Errorf("%s is not available in this build", name) },
	}
}
