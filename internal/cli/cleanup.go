package cli

import ucli "github.com/urfave/cli/v2"

func cleanupCommand(env Env) *ucli.Command { return pending("cleanup", "#8") }
