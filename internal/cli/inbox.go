package cli

import ucli "github.com/urfave/cli/v2"

func inboxCommand(env Env) *ucli.Command { return pending("inbox", "#3") }
