package cli

import ucli "github.com/urfave/cli/v2"

func teammateCommand(env Env) *ucli.Command { return pending("teammate", "#6") }
