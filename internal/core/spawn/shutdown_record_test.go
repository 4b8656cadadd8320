package spawn_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// TestMemberRecordsHowItIsStopped: each member's paneteam record says
// whether what its pane runs answers a shutdown request, as its launcher
// knows: a plain program cannot, paneteam's teammate loop and Claude Code
// can.
func TestMemberRecordsHowItIsStopped(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	// Stand-ins that stay up: only the command line decides the record.
	for _, n := range []string{"aider", "paneteam", "claude"} {
		testutil.WriteExecutable(t, filepath.Join(dir, n), []byte("#!/bin/sh\nexec sleep 600\n"))
	}
	for _, c := range []struct {
		name string
		l    spawn.Program
		want string
	}{
		{"plain", spawn.Command{Argv: []string{filepath.Join(dir, "aider"), "--yes"}}, team.ShutdownEnd},
		{"wrapped", spawn.Command{Argv: []string{filepath.Join(dir, "paneteam"), "teammate", "--", "aider"}}, team.ShutdownAsk},
		{"claude", &spawn.Claude{Command: []string{filepath.Join(dir, "claude")}, Version: claudeversion.Tested}, team.ShutdownAsk},
	} {
		if _, err := spawn.Run(context.Background(), w.request(c.name, dir, c.l)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := "no paneteam record"
		if m := w.config().Member(c.name); m.Paneteam != nil {
			got = m.Paneteam.Shutdown
		}
		if got != c.want {
			t.Errorf("%s's paneteam record says shutdown %q, want %q", c.name, got, c.want)
		}
	}
}

func TestRunsTeammate(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"paneteam", "teammate"}, true},
		{[]string{"/usr/local/bin/paneteam", "teammate", "--", "codex"}, true},
		{[]string{"paneteam", "--root", "/x", "teammate"}, true},
		{[]string{"paneteam", "--lock-timeout=5s", "teammate", "--agent", "codex"}, true},
		{[]string{"aider"}, false},
		{[]string{"aider", "teammate"}, false},
		{[]string{"paneteam", "monitor", "--name", "teammate"}, true}, // in doubt: asked, as before
		{[]string{"paneteam", "--", "teammate"}, false},
		{[]string{"paneteam"}, false},
		{[]string{"/opt/pt/pt-1.2", "teammate"}, true}, // this paneteam, renamed
		{[]string{"/opt/pt/other", "teammate"}, false},
	} {
		if got := spawn.RunsTeammate(c.argv, "/opt/pt/pt-1.2"); got != c.want {
			t.Errorf("RunsTeammate(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}
