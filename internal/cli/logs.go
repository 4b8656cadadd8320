package cli

import ucli "github.com/urfave/cli/v2"

func logsCommand(env Env) *ucli.Command { return pending("logs", "#6") }
