// Command sendfloor is the floor of `paneteam send` in bench/startup: an
// empty Go program plus the file work Claude Code's lock and an atomic,
// durable inbox write need, done with bare system calls and nothing else
// (docs/PROTOCOL.md §4-§6): make the lock directory, read the inbox, write
// a temp file, fsync it, rename it over the inbox, fsync the folder,
// remove the lock directory. It writes the inbox back unchanged, so the
// send case's inbox stays valid. What `paneteam send` costs above this is
// paneteam's own: its binary's start, the command line, the team's
// config, the message, its queue lock and its checks.
//
//	sendfloor [NAME]   (the inbox of member NAME of team bench; default bob)
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sendfloor:", err)
		os.Exit(1)
	}
}

func run() error {
	name := "bob"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	dir := filepath.Join(os.Getenv("PANETEAM_ROOT"), "teams", "bench", "inboxes")
	inbox := filepath.Join(dir, name+".json")
	lock := inbox + ".lock"
	if err := syscall.Mkdir(lock, 0o700); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer syscall.Rmdir(lock)
	b, err := os.ReadFile(inbox)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+name+".json.floor.tmp")
	fd, err := syscall.Open(tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	if _, err := syscall.Write(fd, b); err != nil {
		return err
	}
	if err := syscall.Fsync(fd); err != nil {
		return err
	}
	if err := syscall.Close(fd); err != nil {
		return err
	}
	if err := syscall.Rename(tmp, inbox); err != nil {
		return err
	}
	d, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(d)
	return syscall.Fsync(d)
}
