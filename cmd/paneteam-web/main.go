// Command paneteam-web serves 'paneteam web', the team in a browser
// (internal/ui/web). It is its own program because the web server links
// package net, which paneteam keeps out (cmd/paneteam's TestNoNetOrCgo:
// with cgo, net makes the binary link libc dynamically, a cost paid by
// every keybinding and status-line refresh); 'paneteam web' becomes this
// program, found beside paneteam. It is paneteam's command line with the
// server set: `paneteam-web web --team T`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/paneteam/paneteam/internal/cli"
	"github.com/paneteam/paneteam/internal/ui/web"
)

func main() {
	cli.WebServe = serve
	cli.NewWebToken = web.NewToken
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := cli.Main(ctx, os.Args, cli.SystemEnv())
	stop()
	os.Exit(code)
}

func serve(ctx context.Context, s cli.WebSession) error {
	var boards []web.Board
	for _, t := range s.Teams {
		live := &web.Live{Team: t.Team, Lock: s.Lock, Backend: s.Backend, Caller: s.Caller, Keys: t.Keys, ShutdownTimeout: s.ShutdownTimeout,
			Resuming: s.Resume}
		boards = append(boards, web.Board{Team: t.Team.Name, Actions: live, Watch: t.Watcher})
	}
	return web.Serve(ctx, web.Options{
		Config: web.Config{Teams: boards, Token: s.Token, ReadOnly: s.ReadOnly, SessionTTL: s.SessionTTL},
		Listen: s.Listen, Names: s.Hosts, TLSCert: s.TLSCert, TLSKey: s.TLSKey, StateDir: s.StateDir, JSON: s.JSON, QR: s.QR, Stdout: s.Out,
	})
}
