package cli

import ucli "github.com/urfave/cli/v2"

func iterm2Command(env Env) *ucli.Command { return pending("iterm2", "#5") }
