package cli

import ucli "github.com/urfave/cli/v2"

// commands lists every subcommand, one constructor per file.
func commands(env Env) []*ucli.Command {
	return []*ucli.Command{
		teamCreateCommand(env),
		sendCommand(env),
		demoCommand(env),
	}
}
