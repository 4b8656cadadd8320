// Command paneteam-mcp is the MCP server behind 'paneteam mcp': it gives
// an agent CLI its team as tools, as the teammate PANETEAM_AGENT names.
// It is its own program because the MCP SDK links net/http, which paneteam
// keeps out of every other command's start (cmd/paneteam/init_test.go);
// 'paneteam mcp' runs it in its own place, found beside paneteam.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/paneteam/paneteam/internal/agents/mcpserver"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mcpserver.Main(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr, Version)
	stop()
	os.Exit(code)
}
