package budget

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/sys/configdir"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Guard holds one teammate to its budget for the process that runs it
// (the teammate wrapper, the router, 'paneteam budget-guard'): it makes
// the Watch that tells the lead at WarnAt and stops the teammate past
// the budget, and for a teammate run as a child (RunChild) does the
// stopping: a shutdown_request as its lead, Grace to end, SIGTERM, then
// SIGKILL.
type Guard struct {
	State  string // paneteam's state folder
	Prices string // paneteam's config folder (its prices.json), "" for none
	Team   team.Team
	Name   string
	// USD is the member's own budget; 0: the team's alone.
	USD float64
	// Grace is how long a teammate asked to stop has before it is ended.
	Grace time.Duration
	// Signer signs the shutdown_request as the lead; nil sends it
	// unsigned.
	Signer mailbox.Signer
	// Log shows the person what the guard does and could not do (on
	// stderr); nil drops it.
	Log func(format string, args ...any)
	// Poll is the watch's (0: DefaultPoll).
	Poll time.Duration
}

// DefaultGrace is Guard.Grace unless PANETEAM_BUDGET_GRACE says otherwise.
const DefaultGrace = 20 * time.Second

// termWait is how long a teammate sent SIGTERM has before SIGKILL.
const termWait = 5 * time.Second

// NewGuard is the guard of teammate name of t, as the environment getenv
// describes: the state folder, the price table, the grace
// (PANETEAM_BUDGET_GRACE, a duration) and the lead's keys, which sign
// the request to stop whichever teammate's process runs the guard.
func NewGuard(getenv func(string) string, t team.Team, name string, usd float64) (Guard, error) {
	state, err := provenance.StateDir(getenv)
	if err != nil {
		return Guard{}, fmt.Errorf("a budget needs paneteam's state folder: %w", err)
	}
	g := Guard{State: state, Prices: configdir.Dir(getenv), Team: t, Name: name, USD: usd, Grace: DefaultGrace}
	if d, err := time.ParseDuration(getenv("PANETEAM_BUDGET_GRACE")); err == nil && d >= 0 {
		g.Grace = d
	}
	if keys, err := (post.Caller{Getenv: getenv}).Keys(); err == nil {
		g.Signer = provenance.Lead{Store: keys}
	}
	return g, nil
}

// Held says whether teammate of t is held to a budget: usd of its own,
// or its team's, as the environment getenv finds the state folder.
func Held(getenv func(string) string, t team.Team, usd float64) bool {
	if usd > 0 {
		return true
	}
	state, err := provenance.StateDir(getenv)
	return err == nil && TeamBudget(state, t) > 0
}

// Dollars is a dollar amount as people read it.
func Dollars(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }

// Watch is g's watch: Warn tells the lead, in the teammate's name; stop
// is how the teammate is stopped (it returns how it went), and a last
// message tells the lead it was.
func (g Guard) Watch(stop func(ctx context.Context, why string) string) *Watch {
	w := &Watch{State: g.State, Team: g.Team, Name: g.Name, USD: g.USD, Prices: g.Prices, Poll: g.Poll, Log: g.Log}
	w.Warn = func(ctx context.Context, s Status) {
		g.TellLead(ctx, "budget warning", fmt.Sprintf("%s has spent %s of %s %s (%.0f%%); paneteam stops it at %s.",
			g.Name, Dollars(spent(s)), whose(s), Dollars(s.USD), 100*spent(s)/s.USD, Dollars(s.USD)))
	}
	w.Stop = func(ctx context.Context, s Status) string {
		ctx = context.WithoutCancel(ctx) // what it says is said even as the teammate's run ends
		why := fmt.Sprintf("over %s %s (%s spent)", whose(s), Dollars(s.USD), Dollars(spent(s)))
		g.logf("%s is %s: stopping it", g.Name, why)
		how := stop(ctx, why)
		g.TellLead(ctx, "stopped over budget", fmt.Sprintf("%s was stopped: it spent %s, over %s %s; %s.",
			g.Name, Dollars(spent(s)), whose(s), Dollars(s.USD), how))
		return how
	}
	return w
}

func spent(s Status) float64 {
	if s.SpentUSD == nil {
		return 0
	}
	return *s.SpentUSD
}

func whose(s Status) string {
	if s.Team {
		return "the team's budget of"
	}
	return "its budget of"
}

// TellLead writes the lead a plain message in the teammate's name,
// through post; a failure is shown, never fatal.
func (g Guard) TellLead(ctx context.Context, summary, text string) {
	_, cfg, err := team.Open(g.Team.Root, g.Team.Name)
	if err == nil {
		_, err = post.As(g.Team, cfg, lockfile.Options{}, g.Name).SendLead(ctx, mailbox.Message{Text: text, Summary: summary})
	}
	if err != nil {
		g.logf("could not tell the lead: %v", err)
	}
}

// AskToStop writes the teammate a shutdown_request as its lead, signed
// with g.Signer, why being what it spent over.
func (g Guard) AskToStop(ctx context.Context, why string) error {
	cfg, _ := team.Load(g.Team.ConfigPath()) // nil: the request is still written
	p := &post.Post{Team: g.Team, From: team.LeadName, Signer: g.Signer, Config: cfg}
	_, err := p.AskShutdown(ctx, g.Name, "your budget is spent: "+why+". Stop now.", time.Now())
	return err
}

// RunChild starts cmd, the teammate's program, as a child in this
// terminal and holds it to g's budget: past it, the teammate is asked to
// stop with a shutdown_request (when ask: only in a team paneteam leads,
// which may speak as the lead), given g.Grace to end, then sent SIGTERM,
// then SIGKILL. It returns once the child has ended, with cmd.Wait's
// error. SIGTERM and SIGHUP this process gets are passed on to the child;
// SIGINT and SIGQUIT, the terminal's keys, reach the child's process
// group by themselves and are ignored here.
func (g Guard) RunChild(ctx context.Context, cmd *exec.Cmd, ask bool) error {
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return &StartError{Program: cmd.Args[0], Err: err}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s) //nolint:errcheck // it may have ended
		}
	}()
	w := g.Watch(func(ctx context.Context, why string) string {
		return g.end(ctx, cmd.Process, exited, why, ask)
	})
	w.Beside(ctx, func(context.Context) error { //nolint:errcheck // the run's error is waitErr
		<-exited
		return nil
	})
	return waitErr
}

// end stops the child past its budget and says how.
func (g Guard) end(ctx context.Context, p *os.Process, exited <-chan struct{}, why string, ask bool) string {
	how := ""
	if ask {
		if err := g.AskToStop(ctx, why); err != nil {
			g.logf("could not ask %s to stop: %v", g.Name, err)
		} else {
			how = "asked to stop (a shutdown_request from its lead), "
			select {
			case <-exited:
				return how + "it ended"
			case <-time.After(g.Grace):
			}
		}
	}
	p.Signal(syscall.SIGTERM) //nolint:errcheck // it may have ended
	select {
	case <-exited:
		return how + "ended with SIGTERM"
	case <-time.After(termWait):
	}
	p.Kill() //nolint:errcheck // it may have ended
	<-exited
	return how + "ended with SIGKILL"
}

// StartError is the teammate's program that could not be started.
type StartError struct {
	Program string
	Err     error
}

func (e *StartError) Error() string { return fmt.Sprintf("start %s: %v", e.Program, e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// Beside runs w beside run (the teammate's run), and once run returns,
// lets a stop under way finish saying what it did (for at most 10
// seconds); otherwise the watch ends with the run. It returns run's
// error.
func (w *Watch) Beside(ctx context.Context, run func(ctx context.Context) error) error {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(wctx) //nolint:errcheck // ends with ctx, or once it stopped the teammate
	}()
	err := run(ctx)
	stopping := make(chan struct{})
	go func() {
		// A Stop under way (it waits for the run's end) is let finish.
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		close(stopping)
	}()
	if !w.Stopping() {
		cancel()
	}
	<-stopping
	cancel()
	return err
}

func (g Guard) logf(format string, args ...any) {
	if g.Log != nil {
		g.Log(format, args...)
	}
}
