//go:build darwin || freebsd || netbsd || openbsd

package tty_test

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
