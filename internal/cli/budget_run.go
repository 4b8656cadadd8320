package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/protocol/provenance"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// runGuarded runs argv, teammate name's program, as a child in this
// terminal and holds it to its budget: past it, the teammate is asked
// to stop with a shutdown_request signed as its lead (when ask: only in
// a team paneteam leads, which may speak as the lead), given
// budgetGrace to end, then sent SIGTERM, then SIGKILL. Its exit is this
// process's.
func runGuarded(ctx context.Context, env Env, t team.Team, name string, usdLimit float64, argv []string, ask bool) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = env.Stdin, env.Stdout, env.Stderr, env.Environ()
	// The terminal's keys are the child's: Ctrl-C goes to its whole
	// process group, this one included.
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
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
	grace := budgetGrace(env)
	w, err := budgetWatch(env, t, name, usdLimit, func(ctx context.Context, why string) string {
		how := ""
		if ask {
			if err := askToStop(ctx, env, t, name, why); err != nil {
				warnf(env, "could not ask %s to stop: %v", name, err)
			} else {
				how = "asked to stop (a shutdown_request from its lead), "
				select {
				case <-exited:
					return how + "it ended"
				case <-time.After(grace):
				}
			}
		}
		cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have ended
		select {
		case <-exited:
			return how + "ended with SIGTERM"
		case <-time.After(5 * time.Second):
		}
		cmd.Process.Kill() //nolint:errcheck // it may have ended
		<-exited
		return how + "ended with SIGKILL"
	})
	if err != nil {
		cmd.Process.Kill() //nolint:errcheck
		<-exited
		return err
	}
	return watchBudget(ctx, w, func(context.Context) error {
		<-exited
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			code := ee.ExitCode()
			if code < 0 {
				code = ExitFailure
			}
			return exitError{code: code, err: fmt.Errorf("%s: %w", argv[0], waitErr)}
		}
		return waitErr
	})
}

// askToStop writes teammate name a shutdown_request as its lead, signed
// with the key paneteam gave it (unsigned when it has none).
func askToStop(ctx context.Context, env Env, t team.Team, name, why string) error {
	now := time.Now()
	text, err := mailbox.Text(mailbox.ShutdownRequest{Type: mailbox.TypeShutdownRequest,
		RequestID: fmt.Sprintf("shutdown-%d@%s", now.UnixMilli(), name), From: team.LeadName,
		Reason: "your budget is spent: " + why + ". Stop now.", Timestamp: mailbox.Timestamp(now)})
	if err != nil {
		return err
	}
	in := mailbox.New(t.InboxPath(name), lockfile.Options{})
	if keys, err := provenance.DefaultStore(env.Getenv); err == nil {
		in = in.SignedBy(provenance.Lead{Store: keys})
	}
	return in.Append(ctx, mailbox.Message{From: team.LeadName, Text: text, Timestamp: mailbox.Timestamp(now)})
}
