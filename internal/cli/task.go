package cli

import ucli "github.com/urfave/cli/v2"

func taskCommand(env Env) *ucli.Command { return pending("task", "#7") }
