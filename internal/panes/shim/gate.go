package shim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/lockfile"
)

// GateCommand is the hidden paneteam command a virtual server's pane
// runs until Claude respawns it: 'paneteam shim-gate FILE'.
const GateCommand = "shim-gate"

// gatePoll is how often a gate looks for its command.
const gatePoll = 10 * time.Millisecond

// Gate is a virtual server's pane waiting for its command: it records
// itself in FILE.pid, waits for FILE.run (written by respawn-pane), and
// becomes the command, with environ less the variables that would make
// the teammate take its pane for a tmux one. It returns only on failure;
// it ends when its pane is killed first (the pid file goes).
func Gate(file string, environ []string) error {
	pid := os.Getpid()
	start, _ := proc.StartTime(pid)
	if err := lockfile.WriteAtomic(file+".pid", []byte(strconv.Itoa(pid)+":"+start)); err != nil {
		return fmt.Errorf("paneteam's pane gate: %w", err)
	}
	os.Remove(file + ".new")
	for {
		b, err := os.ReadFile(file + ".run")
		if err == nil {
			os.Remove(file + ".run")
			var run GateRun
			if err := json.Unmarshal(b, &run); err != nil || len(run.Argv) == 0 {
				return fmt.Errorf("paneteam's pane gate: the command in %s.run does not parse", file)
			}
			return execGate(run.Argv, gateEnv(environ))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("paneteam's pane gate: %w", err)
		}
		if _, err := os.Stat(file + ".pid"); err != nil {
			return errors.New("paneteam's pane gate: the pane was closed before its command came")
		}
		time.Sleep(gatePoll)
	}
}

func execGate(argv []string, env []string) error {
	path := argv[0]
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("paneteam's pane gate: %w", err)
		}
		path = p
	}
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("paneteam's pane gate: run %s: %w", path, err)
	}
	return nil
}

// gateEnv is the teammate's environment: the terminal's, without $TMUX,
// $TMUX_PANE and the shim's own variables.
func gateEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMUX" || k == "TMUX_PANE" || strings.HasPrefix(k, "PANETEAM_SHIM_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
