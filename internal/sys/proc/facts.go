package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Facts are what Claude Code's take-over test asks of a process
// (docs/PROTOCOL.md §3 "Rekey"), gathered in one
// place so that the decision itself can be a pure function.
type Facts struct {
	PID int64
	// NoSuchProcess: kill(pid, 0) failed with ESRCH. Claude Code asks
	// only for 1 < pid <= 2^31-1; for any other pid it stays false.
	NoSuchProcess bool
	// Zombie: /proc/<pid>/stat's state is Z (or X, dead).
	Zombie bool
	// StartTicks is field 22 of /proc/<pid>/stat as text (clock ticks
	// since boot), "" when it could not be read.
	StartTicks string
	// StartMillis is when the process started, in epoch ms, as Claude Code
	// computes it: btime*1000 + ticks/100*1000. Valid only if StartKnown.
	StartMillis float64
	StartKnown  bool
}

// maxKillPID is the largest pid Claude Code passes to kill(pid, 0)
// (2^31-1); pids 0, 1 and negatives are never probed either, since
// kill(0|-1, 0) would ask about whole process groups.
const maxKillPID = 1<<31 - 1

// claudeTicksPerSecond is the clock-tick rate Claude Code assumes
// when it turns a start time in ticks into ms (it divides by 100, which
// is USER_HZ on every Linux it runs on).
const claudeTicksPerSecond = 100

// Inspect gathers the Facts about pid from the running system.
func Inspect(pid int64) Facts {
	f := Facts{PID: pid}
	if pid > 1 && pid <= maxKillPID {
		err := syscall.Kill(int(pid), 0)
		f.NoSuchProcess = errors.Is(err, syscall.ESRCH)
	}
	if pid <= 0 || pid > maxKillPID {
		return f
	}
	st, err := readStat(int(pid))
	if err != nil {
		return f
	}
	f.Zombie = st.state == 'Z' || st.state == 'X'
	f.StartTicks = st.start
	if ms, ok := startMillis(st.start); ok {
		f.StartMillis, f.StartKnown = ms, true
	}
	return f
}

func startMillis(ticks string) (float64, bool) {
	n, err := strconv.ParseFloat(ticks, 64)
	if err != nil {
		return 0, false
	}
	bt, err := BootTime()
	if err != nil {
		return 0, false
	}
	return float64(bt)*1000 + n/claudeTicksPerSecond*1000, true
}

// BootTime is the system's boot time in epoch seconds (/proc/stat's
// btime line).
func BootTime() (int64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("boot time: %w", err)
	}
	m := btimeRE().FindSubmatch(b)
	if m == nil {
		return 0, errors.New("boot time: no btime line in /proc/stat")
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

var btimeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^btime (\d+)`) })

// PIDSpace names this process's pid namespace as Claude Code records it
// in leadProcess.pidSpace (docs/PROTOCOL.md §3): "<hostname>#<target of
// /proc/self/ns/pid>", or the hostname alone when the link is unreadable.
func PIDSpace() string {
	host, _ := os.Hostname()
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil || ns == "" {
		return host
	}
	return host + "#" + ns
}

// Parent returns the parent pid of pid (/proc/<pid>/stat field 4).
func Parent(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc stat format")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, errors.New("unexpected /proc stat format")
	}
	return strconv.Atoi(f[1])
}

// Ancestors lists pid and its ancestors, nearest first, up to (not
// including) pid 0; it stops at the first pid it cannot read.
func Ancestors(pid int) []int {
	var out []int
	for i := 0; pid > 0 && i < 1024; i++ {
		out = append(out, pid)
		pp, err := Parent(pid)
		if err != nil || pp == pid {
			break
		}
		pid = pp
	}
	return out
}

// Environ returns the environment pid started with (/proc/<pid>/environ),
// readable for the caller's own processes.
func Environ(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k != "" {
			env[k] = v
		}
	}
	return env, nil
}

// InForeground reports whether pid's process group is the foreground
// process group of the terminal that tty's process (a pane's first
// process) has as its controlling terminal: /proc/<tty>/stat field 8,
// tpgid, against getpgid(pid). A program suspended with Ctrl-Z, or run in
// the background of a shell, is not: what is typed then reaches the
// shell or whatever else holds the foreground (termios(3), "job control").
func InForeground(tty, pid int) (bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", tty))
	if err != nil {
		return false, fmt.Errorf("the terminal's foreground of process %d: %w", tty, err)
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	const tpgidField = 8 - 3 // fields 3.. follow the ')'
	if i < 0 || len(f) <= tpgidField {
		return false, fmt.Errorf("the terminal's foreground of process %d: unexpected /proc stat format", tty)
	}
	fg, err := strconv.Atoi(f[tpgidField])
	if err != nil {
		return false, fmt.Errorf("the terminal's foreground of process %d: %w", tty, err)
	}
	pg, err := syscall.Getpgid(pid)
	if err != nil {
		return false, fmt.Errorf("process group of %d: %w", pid, err)
	}
	return fg > 0 && fg == pg, nil
}
