package lifecycle

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// newTeam creates a team under a fresh root whose lead is this test
// process (alive).
func newTeam(t *testing.T) team.Team {
	t.Helper()
	start, err := proc.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return newTeamLedBy(t, testutil.Root(t), "crew", os.Getpid(), start)
}

func newTeamLedBy(t *testing.T, root, name string, pid int, start string) team.Team {
	t.Helper()
	return teamtest.OnRoot(t, root, name, team.CreateOptions{Cwd: root, LeaderPID: pid, LeaderStart: start})
}

// addMembers adds members with no pane (as if added by hand): there is
// nothing to close, so these tests exercise the protocol alone.
func addMembers(t *testing.T, tm team.Team, names ...string) {
	t.Helper()
	teamtest.Add(t, tm, teamtest.Like(team.Member{Cwd: tm.Root}, names...)...)
}

// opts is the options of a lifecycle call from a bare environment: no
// variable reaches it but PATH (where tmux is found) and the state folder
// the test process was given (testutil), so no test asks the tmux server
// of the terminal it runs in, and what a cleanup keeps (the ended team's
// costs) stays out of HOME.
func opts() Options {
	return Options{Backend: backend.Env{Getenv: func(k string) string {
		if k == "PANETEAM_STATE_DIR" || k == "PATH" {
			return os.Getenv(k)
		}
		return ""
	}}}
}

// teammate answers shutdown requests in its inbox the way a teammate
// does: approve, reject, or never answer ("silent").
func teammate(t *testing.T, tm team.Team, name, behaviour string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		in := mailbox.New(tm.InboxPath(name), opts().Lock)
		lead := mailbox.New(tm.InboxPath(team.LeadName), opts().Lock)
		for ctx.Err() == nil {
			msgs, _ := in.Unread()
			for _, m := range msgs {
				p, _ := mailbox.Parse(m.Text)
				req, ok := p.Value.(*mailbox.ShutdownRequest)
				if !ok || behaviour == "silent" {
					continue
				}
				in.MarkRead(ctx, []mailbox.Message{m})
				now := mailbox.Timestamp(time.Now())
				var v any = mailbox.ShutdownApproved{Type: mailbox.TypeShutdownApproved, RequestID: req.RequestID, From: name, Timestamp: now}
				if behaviour == "reject" {
					v = mailbox.ShutdownRejected{Type: mailbox.TypeShutdownRejected, RequestID: req.RequestID, From: name, Reason: "still writing tests", Timestamp: now}
				}
				text, _ := mailbox.Text(v)
				lead.Append(ctx, mailbox.Message{From: name, Text: text, Timestamp: now})
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if proc.Exists(cmd.Process.Pid) {
		t.Skip("pid reused at once; cannot make a dead lead")
	}
	return cmd.Process.Pid
}
