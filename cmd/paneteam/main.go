// Command paneteam runs teams of AI coding agents in terminal panes, over
// the same team files Claude Code's agent teams use.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/paneteam/paneteam/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args, cli.SystemEnv())
	stop()
	os.Exit(code)
}
