package launch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// An agent CLI is ended by its own quit command, typed with Enter, not
// by a hang-up: it gets to save its session and say goodbye.
func TestAgentQuitsWithItsOwnCommand(t *testing.T) {
	prog, err := teammate.StartProgram([]string{"sh", "-c", `read line; [ "$line" = /quit ] && exit 7; sleep 60`},
		teammate.ProgramOptions{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := Agent(prog, "/quit", false).Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := prog.Exit(); err == nil || !strings.Contains(err.Error(), "exit status 7") {
		t.Errorf("the program ended with %v, want its own exit 7 after /quit", err)
	}
	if d := time.Since(start); d >= quitGrace {
		t.Errorf("Stop took %s, want the quit to end it before the %s grace", d, quitGrace)
	}
}

// With the CLI's hook, the member shows its idle as the hook's, and its
// turns are the lines the hook writes.
func TestHookTurns(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice")...)
	turns := filepath.Join(t.TempDir(), "turns")
	tr, err := HookTurns(context.Background(), teammate.Config{Team: tm, Name: "alice", Lock: lockfile.Options{}}, turns)
	if err != nil {
		t.Fatal(err)
	}
	if m := teamtest.Member(t, tm, "alice"); m.Paneteam == nil || m.Paneteam.IdleBy != team.IdleByHook {
		t.Errorf("alice's paneteam fields %+v, want idle by hook", m.Paneteam)
	}
	if n := tr.Ended(); n != 0 {
		t.Errorf("%d turns ended before the hook wrote any", n)
	}
	if err := os.WriteFile(turns, []byte("1\n2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := tr.Ended(); n != 2 {
		t.Errorf("%d turns ended, want the hook's 2", n)
	}
}
