package cli

import ucli "github.com/urfave/cli/v2"

func spawnPaneCommand(env Env) *ucli.Command { return pending("spawn-pane", "#4") }
