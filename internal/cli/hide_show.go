package cli

import ucli "github.com/urfave/cli/v2"

func hideCommand(env Env) *ucli.Command { return pending("hide", "#4") }

func showCommand(env Env) *ucli.Command { return pending("show", "#4") }
