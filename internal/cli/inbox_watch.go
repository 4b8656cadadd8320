package cli

import ucli "github.com/urfave/cli/v2"

func inboxWatchCommand(env Env) *ucli.Command { return pending("inbox-watch", "#3") }
