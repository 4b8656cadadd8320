package notice

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/paneteam/paneteam/internal/term/osc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// attached is a private tmux server with a client in a pty of ours: what
// the person's terminal receives is screen.
func attached(t *testing.T, termEnv string) (tmux.Server, *testutil.Buffer) {
	t.Helper()
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	if _, err := srv.Run(ctx, "new-session", "-d", "-s", "work", "-x", "100", "-y", "20", "cat"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tmux", "-S", srv.Socket, "attach-session", "-t", "work")
	cmd.Env = testutil.Env("TERM=" + termEnv)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 20, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); cmd.Process.Kill(); cmd.Wait() })
	screen := &testutil.Buffer{}
	go io.Copy(screen, ptmx)
	testutil.Eventually(t, 10*time.Second, "a client attached", func() bool {
		out, _ := srv.Run(ctx, "list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
	return srv, screen
}

// TestTerminalThroughTmux: the sequence reaches the person's terminal
// unwrapped when allow-passthrough is on, and not at all when off (the
// sender says why).
func TestTerminalThroughTmux(t *testing.T) {
	n := Notice{Kind: NeedsYou, Team: "crew", Text: "alice needs you"}
	for _, c := range []struct {
		term osc.Terminal
		want string
	}{
		{osc.OSC9, "\x1b]9;paneteam crew: alice needs you\a"},
		{osc.OSC777, "\x1b]777;notify;paneteam crew;alice needs you\a"},
		{osc.OSC99, string(osc.Notification(osc.OSC99, "paneteam crew", "alice needs you"))},
	} {
		t.Run(string(c.term), func(t *testing.T) {
			srv, screen := attached(t, "xterm")
			ctx := context.Background()
			if _, err := srv.Run(ctx, "set-option", "-g", "allow-passthrough", "off"); err != nil {
				t.Fatal(err)
			}
			send := Terminal{Term: c.term, Server: &srv}
			if err := send.Send(ctx, n); err == nil || !strings.Contains(err.Error(), "allow-passthrough is off") {
				t.Errorf("with passthrough off: %v", err)
			}
			if off, err := PassthroughOff(ctx, srv); err != nil || !off {
				t.Errorf("PassthroughOff = %v, %v", off, err)
			}
			if _, err := srv.Run(ctx, "set-option", "-g", "allow-passthrough", "on"); err != nil {
				t.Fatal(err)
			}
			if err := send.Send(ctx, n); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, 5*time.Second, "the terminal to get "+c.want, func() bool {
				return strings.Contains(screen.String(), c.want)
			})
			time.Sleep(200 * time.Millisecond)
			if got := strings.Count(screen.String(), c.want); got != 1 {
				t.Errorf("the terminal got it %d times", got)
			}
		})
	}
}
