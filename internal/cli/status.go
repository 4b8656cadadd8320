package cli

import ucli "github.com/urfave/cli/v2"

func statusCommand(env Env) *ucli.Command { return pending("status", "#3") }
