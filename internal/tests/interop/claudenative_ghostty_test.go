package interop

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Ghostty cannot run here: its stand-in for osascript
// (internal/panes/native/testdata/fakeosascript) plays Ghostty 1.3.0 on
// macOS, whose terminals report no tty, so paneteam finds the lead's
// terminal by the focused one. Its terminals carry what Ghostty gives
// them (TERM_PROGRAM=ghostty and its version); GHOSTTY_FAKE_STATE is
// where the stand-in keeps its world and PANETEAM_TEST_GHOSTTY lets the
// driver run on Linux, as only a test may.
func init() {
	fakeTermVars[nativetest.Ghostty] = []string{"TERM_PROGRAM", "TERM_PROGRAM_VERSION", "GHOSTTY_FAKE_STATE", "PANETEAM_TEST_GHOSTTY"}
}

// TestPaneteamClaudeInGhosttyAfterAClosedTerminal: the lead runs in a
// Ghostty terminal. Claude's teammates open as Ghostty splits of the
// lead's laid out main-vertical, each named after its teammate where
// Ghostty can (not on 1.3.0); the person closes one by hand (Ghostty
// hangs up its Claude) and asks for a third, which opens beside a live
// split; the lead's exit leaves nothing: no terminal of the stand-in, no
// process of its, no private tmux server, no pane in paneteam's tmux.
func TestPaneteamClaudeInGhosttyAfterAClosedTerminal(t *testing.T) {
	term := &fakeTerm{kind: nativetest.Ghostty}
	l := startNativeLead(t, term, "main-vertical")
	team := mustConfig(t, l.Session).Name
	first := term.tm.First
	// The choice said: on 1.3.0 the lead's terminal is the focused one,
	// and paneteam claude names it before Claude takes the screen.
	lead := ghosttyUUID(first)
	testutil.Eventually(t, 10*time.Second, "paneteam claude to say which Ghostty terminal it took for the lead's", func() error {
		s, _ := term.tm.Screen(first)
		if !strings.Contains(s, "paneteam: Ghostty terminal "+lead+", the focused terminal") {
			return fmt.Errorf("the lead's terminal shows no note naming %s:\n%s", lead, s)
		}
		return nil
	})

	l.spawn(t, "dora", "eve")
	panes := nativeTeammates(t, l, term, "dora", "eve")
	d, e := term.split(t, panes["dora"].handle), term.split(t, panes["eve"].handle)
	if d.SplitFrom != first || d.Direction != "right" {
		t.Errorf("dora's terminal was made %+v: want a split right of the lead's terminal %d", d, first)
	}
	if e.SplitFrom != d.ID || e.Direction != "down" {
		t.Errorf("eve's terminal was made %+v: want a split below dora's terminal %d", e, d.ID)
	}
	checkNativeStatus(t, l, "dora", "eve")
	hosts := []int{d.HostPID, e.HostPID}

	// Closed by hand, through the stand-in: eve's terminal goes from
	// Ghostty's list and its Claude is hung up.
	if err := term.tm.Close(e.ID); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 15*time.Second, "eve's Claude to end with its closed terminal", func() bool {
		return len(agentProcs("eve@"+team)) == 0
	})
	l.spawn(t, "frank")
	f := term.split(t, nativeTeammates(t, l, term, "frank")["frank"].handle)
	if f.SplitFrom != d.ID || f.Direction != "down" {
		t.Errorf("frank's terminal was made %+v: want a split below dora's live terminal %d (eve's %d is closed)", f, d.ID, e.ID)
	}
	hosts = append(hosts, f.HostPID)
	if bad := l.unknownCalls(t); len(bad) > 0 {
		t.Errorf("the shim refused calls of Claude Code %s:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
	if leadPane, err := term.tm.Pane(first); err == nil {
		hosts = append(hosts, leadPane.HostPID)
	}

	exitNativeLead(t, l, term, "dora@"+team, "frank@"+team)
	// The lead's own terminal closes with its program, as Ghostty's do:
	// the stand-in is left with no terminal.
	testutil.Eventually(t, 15*time.Second, "the stand-in to have no terminal left", func() error {
		ps, err := term.tm.Panes()
		if err != nil || len(ps) > 0 {
			return fmt.Errorf("terminals left: %+v (%v)", ps, err)
		}
		return nil
	})
	testutil.Eventually(t, 10*time.Second, "the stand-in's terminals' processes to end", func() error {
		for _, pid := range hosts {
			if pid > 0 && proc.Alive(pid, "") {
				return fmt.Errorf("the host of a terminal (pid %d) still runs", pid)
			}
		}
		return nil
	})
	calls, _ := term.tm.Calls()
	closed := 0
	for _, c := range calls {
		if s := strings.Join(c, " "); strings.Contains(s, "close (terminal id") {
			closed++
		}
	}
	if closed < 2 {
		t.Errorf("paneteam closed %d Ghostty terminals; want dora's and frank's closed with the lead", closed)
	}
	// Claude's lead ran outside tmux with paneteam's tmux: no private
	// server was ever made, and paneteam's tmux holds no pane.
	sock := filepath.Join(l.tmpDir, "tmux-"+strconv.Itoa(os.Getuid()), "claude-swarm-"+strconv.Itoa(l.PID))
	if _, err := os.Stat(sock); err == nil {
		t.Errorf("a private tmux server's socket %s is left", sock)
	}
	st, err := virtualtmux.Read(filepath.Join(l.state, "vtmux", strconv.Itoa(l.PID)))
	if err != nil || len(st.Panes) != 0 {
		t.Errorf("paneteam's tmux for the lead after its exit: %+v, %v; want it to hold no pane", st, err)
	}
}

// ghosttyUUID is the stand-in's id of terminal n (a surface's UUID).
func ghosttyUUID(n int) string { return fmt.Sprintf("5A1F7E57-0000-4000-8000-%012X", n) }
