package cli

import ucli "github.com/urfave/cli/v2"

func killPaneCommand(env Env) *ucli.Command { return pending("kill-pane", "#4") }
