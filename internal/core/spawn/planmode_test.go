package spawn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestPlanModeMakesThePlanRequired: a Claude Code teammate spawned in plan
// mode, by any front end that builds the request, gets planModeRequired in
// its member row (and so the flag that makes it ask the lead); in another
// mode it does not.
func TestPlanModeMakesThePlanRequired(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	bin, args := filepath.Join(dir, "claude"), filepath.Join(dir, "args")
	testutil.WriteExecutable(t, bin, []byte("#!/bin/sh\necho \"$@\" >> "+args+"\nexec sleep 600\n"))
	for _, c := range []struct {
		name, mode string
		want       bool
	}{{"planner", "plan", true}, {"doer", "acceptEdits", false}} {
		l := &spawn.Claude{Command: []string{bin}, PermissionMode: c.mode, NoSign: true, Version: claudeversion.Tested}
		if _, err := spawn.Run(context.Background(), w.request(c.name, dir, l)); err != nil {
			t.Fatalf("spawn %s: %v", c.name, err)
		}
		m := w.config().Member(c.name)
		got := m != nil && m.PlanModeRequired != nil && *m.PlanModeRequired
		if got != c.want {
			t.Errorf("%s in %s mode: planModeRequired %v, want %v", c.name, c.mode, got, c.want)
		}
	}
	testutil.Eventually(t, 5*time.Second, "both teammates to start", func() bool {
		b, _ := os.ReadFile(args)
		return strings.Count(string(b), "\n") == 2
	})
	b, _ := os.ReadFile(args)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		planner := strings.Contains(l, "--agent-name planner")
		if strings.Contains(l, "--plan-mode-required") != planner {
			t.Errorf("started as %q: --plan-mode-required only for the planner", l)
		}
	}
}
