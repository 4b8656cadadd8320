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
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return "", fmt.Errorf("start time of pid %d: %w", pid, err)
		}
		// The command name (field 2) is in parentheses and may hold spaces
		// or parentheses itself: count fields after the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			return "", fmt.Errorf("start time of pid %d: unexpected /proc stat format", pid)
		}
		f := strings.Fields(string(b[i+1:]))
		const startField = 22 - 3 // fields 3.. follow the ')'
		if len(f) <= startField {
			return "", fmt.Errorf("start time of pid %d: unexpected /proc stat format", pid)
		}
		return f[startField], nil
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
func Alive(pid int, start string) bool {
	if !Exists(pid) || zombie(pid) {
		return false
	}
	if start == "" {
		return true
	}
	now, err := StartTime(pid)
	if err != nil {
		return false
	}
	return now == start
}

// zombie reports whether pid has exited and waits to be reaped: kill(pid,
// 0) still succeeds for it, and an init that never reaps (some containers'
// pid 1) keeps it forever. Linux only (/proc/PID/stat field 3); elsewhere
// false.
func zombie(pid int) bool {
	if runtime.GOOS != "linux" {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] == 'Z'
}
