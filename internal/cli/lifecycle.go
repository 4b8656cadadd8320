package cli

import (
	"github.com/paneteam/paneteam/internal/core/lifecycle"
	ucli "github.com/urfave/cli/v3"
)

// What the lifecycle commands (kill-pane, shutdown, cleanup) share.

// readLifecycle is what the lifecycle commands need from the command
// line and the environment captured at start.
func readLifecycle(c *ucli.Command, env Env) lifecycle.Options {
	return lifecycle.Options{Lock: readLock(c), Backend: backendEnv(env), Signer: leadSigner(env)}
}
