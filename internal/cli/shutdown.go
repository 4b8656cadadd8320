package cli

import ucli "github.com/urfave/cli/v2"

func shutdownCommand(env Env) *ucli.Command { return pending("shutdown", "#8") }
