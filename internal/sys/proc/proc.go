// Package proc identifies processes across time: a pid alone is not enough,
// because pids are reused. A process is named by its pid and its start time.
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StartTime returns an opaque token for when pid started; the same process
// always gives the same token, and a later process with the same pid gives
// another. On Linux it is the start time in clock ticks since boot
// (/proc/PID/stat field 22); elsewhere ps's lstart.
func StartTime(pid int) (string, error) {
	if pid <= 0 {
		return "", fmt.Errorf("start time of pid %d: not a process id", pid)
	}
	if runtime.GOOS == "linux" {
		st, err := readStat(pid)
		if err != nil {
			return "", fmt.Errorf("start time of pid %d: %w", pid, err)
		}
		return st.start, nil
	}
	out, err := exec.Command("ps", "-o", "lstart=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return "", fmt.Errorf("start time of pid %d: %w", pid, err)
	}
	s := strings.TrimSpace(string(out))
	if s == "" {
		return "", fmt.Errorf("start time of pid %d: no such process", pid)
	}
	return s, nil
}

// linuxStat is what this package needs of /proc/PID/stat (proc(5)).
type linuxStat struct {
	state byte   // field 3: 'Z' for a zombie
	start string // field 22: start time in clock ticks since boot
}

func readStat(pid int) (linuxStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return linuxStat{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// or parentheses itself: count fields after the last ')'.
	bad := errors.New("unexpected /proc stat format")
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return linuxStat{}, bad
	}
	f := strings.Fields(string(b[i+1:]))
	const stateField, startField = 3 - 3, 22 - 3 // fields 3.. follow the ')'
	if len(f) <= startField || len(f[stateField]) != 1 {
		return linuxStat{}, bad
	}
	return linuxStat{state: f[stateField][0], start: f[startField]}, nil
}

// Exists reports whether a process with this pid exists (it may belong to
// another user).
func Exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Alive reports whether the process that had this pid and start time is
// still running. An empty start only checks the pid.
//
// On Linux one read of /proc/PID/stat answers both questions: the start
// time, and whether the process is a zombie, which kill(pid, 0) still
// reports as existing and an init that never reaps (some containers' pid
// 1) keeps forever.
func Alive(pid int, start string) bool {
	if !Exists(pid) {
		return false
	}
	if runtime.GOOS != "linux" {
		if start == "" {
			return true
		}
		now, err := StartTime(pid)
		return err == nil && now == start
	}
	st, err := readStat(pid)
	if err != nil {
		// The pid exists but its stat is hidden (hidepid): only a check
		// without a start time can pass.
		return start == ""
	}
	for i := 0; st.state == 'Z' && i < zombieLooks; i++ {
		// A process whose other thread is in execve shows its main
		// thread as a zombie until the exec completes (Go's
		// syscall.Exec runs on any thread: 'paneteam claude' becoming
		// Claude, a gate becoming its teammate). A real zombie stays
		// one: look again before calling it dead.
		time.Sleep(zombiePause)
		if st, err = readStat(pid); err != nil {
			return false
		}
	}
	return st.state != 'Z' && (start == "" || st.start == start)
}

// How long Alive watches a zombie before believing it (300 ms): an
// exec's zombie main thread lasts while the old image is torn down,
// milliseconds, and tens of them for a process with large mappings (one
// built with the race detector was seen over 50 ms).
const (
	zombieLooks = 30
	zombiePause = 10 * time.Millisecond
)

// Zombie reports whether pid is a zombie that stays one (not a process
// caught in an exec, see Alive). A pid that is gone is not a zombie.
func Zombie(pid int) bool {
	if runtime.GOOS != "linux" {
		return false
	}
	st, err := readStat(pid)
	if err != nil || st.state != 'Z' {
		return false
	}
	return !Alive(pid, "") && Exists(pid)
}
