// Command paneteam-dashboard draws 'paneteam dashboard', the full-screen
// view of a team (internal/ui/dashboard, on Bubble Tea v2). It is its own
// program because Bubble Tea and the terminal libraries under it do work
// at every start of a program that links them (key and width tables,
// parser tables) and link os/user (through xo/terminfo), which makes a cgo
// build link libc dynamically: costs every keybinding, status-line
// refresh and shell-loop send would otherwise pay; 'paneteam dashboard'
// becomes this program, found beside paneteam. It is paneteam's command
// line with the dashboard drawn: `paneteam-dashboard dashboard --team T`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/paneteam/paneteam/internal/cli"
	"github.com/paneteam/paneteam/internal/ui/dashboard"
)

func main() {
	cli.DashboardUI = run
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := cli.Main(ctx, os.Args, cli.SystemEnv())
	stop()
	os.Exit(code)
}

func run(ctx context.Context, s cli.DashboardSession) (string, error) {
	live := &dashboard.Live{Team: s.Team, Lock: s.Lock, Backend: s.Backend, Watch: s.Watch,
		ShutdownTimeout: s.ShutdownTimeout, Caller: s.Caller, Keys: s.Keys,
		Dir: s.Dir, Records: s.Records, Words: dashboard.LandWords{Landed: s.Landed, Refused: s.Refused}}
	return dashboard.Run(ctx, live, dashboard.RunOptions{
		Options: dashboard.Options{Team: s.Team.Name, Review: s.Review, Color: s.Color, QuitAfterJump: s.QuitAfterJump},
		Watch:   s.Watcher, In: s.In, Out: s.Out,
	})
}
