package remote

import (
	"errors"
	"golang.org/x/sys/unix"
	"syscall"
)

func sessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func syscallKill(pid int) {
	if pid > 0 {
		syscall.Kill(pid, syscall.SIGTERM)
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// foreground puts the teammate in a process group of its own, in the
// terminal's foreground when there is one, so keys reach it and a stop
// reaches every process it started.
func foreground() *syscall.SysProcAttr {
	if _, err := unix.IoctlGetInt(0, unix.TIOCGPGRP); err == nil {
		return &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}
