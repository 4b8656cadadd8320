package cli

import ucli "github.com/urfave/cli/v2"

func attachCommand(env Env) *ucli.Command { return pending("attach", "#4") }
