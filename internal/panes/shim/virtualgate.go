package shim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/sys/proc"
)

// teammateEnv is the environment a teammate gets from its lead, as the
// private tmux server this replaces would have given it: the lead's own
// (its API key, the PATH its shell set up), less the shim's variables and
// folder, $TMUX, and the terminal's variables, which the gate takes from
// its own pane (KITTY_WINDOW_ID, WEZTERM_PANE: the teammate's pane, not
// the lead's).
func (s *Shim) teammateEnv() []string {
	var out []string
	for _, kv := range s.realEnv() {
		if k, _, _ := strings.Cut(kv, "="); k != "" && !IsTerminalVar(k) {
			out = append(out, kv)
		}
	}
	return out
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

// gateStartLimit is how long a pane's gate may take to start before the
// pane is taken for one the terminal never opened.
const gateStartLimit = 30 * time.Second

// The gate's own files: FILE.pid holds "<pid>:<start time>" of the gate
// (the process that becomes the teammate), FILE.run the command.

// gateAlive reports whether the gate of file, or what it became, runs.
// A gate that has not written its pid yet counts as alive.
func gateAlive(file string) bool {
	b, err := os.ReadFile(file + ".pid")
	if errors.Is(err, fs.ErrNotExist) {
		st, err := os.Stat(file + ".new")
		return err == nil && time.Since(st.ModTime()) < gateStartLimit
	}
	pid, start, ok := procTag(string(b))
	return ok && proc.Alive(pid, start)
}

// endGate hangs up the gate's process group (the teammate and what it
// started), then kills what is left after a grace period.
func endGate(file string) {
	b, err := os.ReadFile(file + ".pid")
	if err != nil {
		return
	}
	pid, start, ok := procTag(string(b))
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

// procTag reads a process's "<pid>:<start time>" (the start may be
// empty: only the pid is then checked).
func procTag(tag string) (pid int, start string, ok bool) {
	p, start, _ := strings.Cut(strings.TrimSpace(tag), ":")
	pid, err := strconv.Atoi(p)
	return pid, start, err == nil && pid > 1
}

func removeGate(file string) {
	for _, ext := range []string{"", ".pid", ".run", ".new"} {
		os.Remove(file + ext)
	}
}
