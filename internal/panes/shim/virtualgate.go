package shim

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/proc"
)

// teammateEnv is the environment a teammate gets from its lead, as the
// private tmux server this replaces would have given it: the lead's own
// (its API key, the PATH its shell set up), less the shim's variables and
// folder, $TMUX, and the terminal's variables, which the gate takes from
// its own pane (KITTY_WINDOW_ID, WEZTERM_PANE: the teammate's pane, not
// the lead's).
func (s *Shim) teammateEnv() []string {
	return envlist.Filter(s.realEnv(), func(k string) bool { return k != "" && !IsTerminalVar(k) })
}

// writeGateRun writes o as the exec file FILE.run of the gate file.
func writeGateRun(file string, o native.Open) error {
	tmp, err := native.WriteExecFile(filepath.Dir(file), o)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, file+".run"); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("hand the command to the pane's gate: %w", err)
	}
	return nil
}

// endGate hangs up the gate's process group (the teammate and what it
// started), then kills what is left after a grace period.
func endGate(file string) {
	b, err := os.ReadFile(file + ".pid")
	if err != nil {
		return
	}
	pid, start, ok := virtualtmux.ProcTag(string(b))
	if !ok || !proc.Alive(pid, start) {
		return // gone, or the pid is someone else's now
	}
	syscall.Kill(-pid, syscall.SIGHUP)
	syscall.Kill(pid, syscall.SIGHUP)
	deadline := time.Now().Add(gateHangUp)
	for time.Now().Before(deadline) {
		if !proc.Alive(pid, start) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGKILL)
}

// gateHangUp is how long a hung-up teammate has to exit before it is
// killed.
var gateHangUp = 2 * time.Second

func removeGate(file string) {
	for _, ext := range []string{"", ".pid", ".run", ".new"} {
		os.Remove(file + ext)
	}
}
