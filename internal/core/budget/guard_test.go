package budget_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// TestGuardEscalates: a teammate run as the guard's child, past its
// budget, is asked to stop with a shutdown_request from its lead, given
// its grace, then sent SIGTERM, then SIGKILL when it ignores that too; the
// lead is told in the teammate's name, and the kept status says how it
// ended. One that ends with SIGTERM, not to be asked (a team Claude Code
// leads), gets no request.
func TestGuardEscalates(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the SIGTERM grace")
	}
	for _, tc := range []struct {
		name, script, how string
		ask               bool
	}{
		{"ignores SIGTERM", `trap "" TERM; exec sleep 30`, "asked to stop (a shutdown_request from its lead), ended with SIGKILL", true},
		{"ends with SIGTERM", `exec sleep 30`, "ended with SIGTERM", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.reply(t, "m1", 0, 20000) // $0.20 of $0.10: over at the first look
			g := budget.Guard{State: w.state, Prices: w.config, Team: w.t, Name: "bob", USD: 0.10,
				Grace: 200 * time.Millisecond, Poll: 20 * time.Millisecond, Log: t.Logf}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			err := g.RunChild(ctx, exec.Command("sh", "-c", tc.script), tc.ask)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || time.Since(start) > 20*time.Second {
				t.Fatalf("RunChild: %v after %v, want the child ended by a signal", err, time.Since(start))
			}
			if s := budget.Load(w.state, w.t, "bob"); s == nil || s.State != budget.Stopped || !strings.HasSuffix(s.Why, tc.how) {
				t.Errorf("kept status %+v, want stopped, %s", s, tc.how)
			}
			asked := ""
			bobs, _ := mailbox.New(w.t.InboxPath("bob"), lockfile.Options{}).ReadAll()
			for _, m := range bobs {
				if f, ok := mailbox.Parse(m.Text); ok && m.From == team.LeadName {
					if r, isReq := f.Value.(*mailbox.ShutdownRequest); isReq {
						asked = r.Reason
					}
				}
			}
			if want := "your budget is spent: over its budget of $0.10 ($0.20 spent). Stop now."; tc.ask && asked != want {
				t.Errorf("bob was asked %q, want %q", asked, want)
			} else if !tc.ask && asked != "" {
				t.Errorf("bob was asked to stop (%q) where only Claude's lead may ask", asked)
			}
			var told []string
			leads, _ := mailbox.New(w.t.InboxPath(team.LeadName), lockfile.Options{}).ReadAll()
			for _, m := range leads {
				if m.From == "bob" {
					told = append(told, m.Summary+": "+m.Text)
				}
			}
			if len(told) != 2 || !strings.HasPrefix(told[0], "budget warning: ") || !strings.HasPrefix(told[1], "stopped over budget: bob was stopped") ||
				!strings.Contains(told[1], tc.how) {
				t.Errorf("the lead was told %q, want the warning, then how bob was stopped", told)
			}
		})
	}
}
