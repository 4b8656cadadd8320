package shim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/lockfile"
)

// GateCommand is the hidden paneteam command a virtual server's pane
// runs until Claude respawns it: 'paneteam shim-gate FILE'.
const GateCommand = "shim-gate"

// gatePoll is how often a gate looks for its command; every
// gateLeadEvery polls (about a second) it checks that its lead still
// runs: a lead that died between the split and the respawn would leave
// it waiting for ever.
const (
	gatePoll      = 10 * time.Millisecond
	gateLeadEvery = 100
)

// leadWatch returns what says why the lead of the gate file's server can
// no longer send the command ("" while it can).
func leadWatch(file string) func() string {
	st, err := virtualtmux.Read(gateServer(file))
	pid, start, ok := virtualtmux.ProcTag(st.Lead)
	if err != nil || !ok {
		// No lead to watch: the pid file goes with the server's
		// folder.
		return func() string { return "" }
	}
	return func() string {
		if proc.Alive(pid, start) {
			return ""
		}
		return fmt.Sprintf("its Claude Code lead (pid %d) ended", pid)
	}
}

// Gate is a virtual server's pane waiting for its command: it records
// itself in FILE.pid, waits for FILE.run (native's exec file, written by
// respawn-pane), and becomes its command, in the lead's environment the
// file carries plus the terminal's variables of environ (its own
// pane's). It returns only on failure; it ends when its pane is killed
// first (the pid file goes).
//
// A failure shows in the pane only until it closes, at once: it is
// written to the shim's log (virtualtmux.State.Log) too.
func Gate(file string, environ []string) error {
	err := gate(file, environ)
	if err != nil {
		logGate(file, err)
	}
	return err
}

func gate(file string, environ []string) error {
	pid := os.Getpid()
	start, _ := proc.StartTime(pid)
	if err := lockfile.WriteAtomic(file+".pid", []byte(strconv.Itoa(pid)+":"+start)); err != nil {
		return fmt.Errorf("paneteam's pane gate: %w", err)
	}
	os.Remove(file + ".new")
	leadGone := leadWatch(file)
	for i := 1; ; i++ {
		_, err := os.Lstat(file + ".run")
		if err == nil {
			if err := setEnviron(gateEnv(environ)); err != nil {
				return fmt.Errorf("paneteam's pane gate: %w", err)
			}
			// The exec file's checks (0600, owned by this user, not a
			// symlink) come before anything of it runs.
			if err := native.RunExecFile(file + ".run"); err != nil {
				return fmt.Errorf("paneteam's pane gate: %w", err)
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("paneteam's pane gate: %w", err)
		}
		if _, err := os.Stat(file + ".pid"); err != nil {
			return errors.New("paneteam's pane gate: the pane was closed before its command came")
		}
		if i%gateLeadEvery == 0 {
			if why := leadGone(); why != "" {
				return fmt.Errorf("paneteam's pane gate: %s before its teammate's command came", why)
			}
		}
		time.Sleep(gatePoll)
	}
}

// setEnviron makes environ this process's whole environment, which
// native.RunExecFile starts the teammate with (plus the file's own).
func setEnviron(environ []string) error {
	os.Clearenv()
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if k == "" {
			continue
		}
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("set %s: %w", k, err)
		}
	}
	return nil
}

// gateEnv is what the teammate keeps of the gate's environment, which
// the terminal gave its pane: only the terminal's variables for that
// pane, less those that would make Claude drive iTerm2 itself. The rest
// comes from the lead (FILE.run).
func gateEnv(environ []string) []string {
	own := TerminalVars(environ)
	for _, k := range ITerm2Vars(func(k string) string { return own[k] }) {
		delete(own, k)
	}
	out := make([]string, 0, len(own))
	for k, v := range own {
		out = append(out, k+"="+v)
	}
	return out
}

// gateServer is the folder of the virtual server whose gate file is file
// (<folder>/gates/N).
func gateServer(file string) string { return filepath.Dir(filepath.Dir(file)) }

// logGate appends a gate's failure to its server's log, if it has one.
func logGate(file string, err error) {
	st, rerr := virtualtmux.Read(gateServer(file))
	if rerr != nil || st.Log == "" {
		return
	}
	appendLog(st.Log, logEntry{
		Time: time.Now().UTC().Format(time.RFC3339Nano), PID: os.Getpid(), PPID: os.Getppid(),
		Argv: []string{GateCommand, file}, RC: 1, Gate: file, Error: err.Error(),
	})
}
