package teamwatch

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// exits waits on processes' ends through pidfds (pidfd_open(2), Linux
// 5.3): a pidfd polls readable once its process has ended, so one poll(2)
// on all of them tells of the first death without asking tmux anything.
type exits struct {
	fds map[int]int // pid → pidfd
}

// watch makes pids the processes waited on. False when one cannot be
// (gone already, or pidfds unavailable): the caller keeps polling.
func (e *exits) watch(pids []int) bool {
	want := map[int]bool{}
	for _, p := range pids {
		want[p] = true
	}
	for p, fd := range e.fds {
		if !want[p] {
			unix.Close(fd)
			delete(e.fds, p)
		}
	}
	if e.fds == nil {
		e.fds = map[int]int{}
	}
	ok := true
	for p := range want {
		if _, have := e.fds[p]; have {
			continue
		}
		fd, err := unix.PidfdOpen(p, 0)
		if err != nil {
			ok = false
			continue
		}
		e.fds[p] = fd
	}
	return ok
}

func (e *exits) close() {
	for p, fd := range e.fds {
		unix.Close(fd)
		delete(e.fds, p)
	}
}

// wait returns a channel closed when one of the processes has ended, and
// stop, which ends the wait (call it once, always). No process: nil.
func (e *exits) wait() (<-chan struct{}, func(), error) {
	if len(e.fds) == 0 {
		return nil, func() {}, nil
	}
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return nil, func() {}, fmt.Errorf("wait on teammates' processes: %w", err)
	}
	pfds := []unix.PollFd{{Fd: int32(pipe[0]), Events: unix.POLLIN}}
	for _, fd := range e.fds {
		pfds = append(pfds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	ended, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			_, err := unix.Poll(pfds, -1)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || pfds[0].Revents != 0 {
				return
			}
			for _, p := range pfds[1:] {
				if p.Revents != 0 {
					close(ended)
					return
				}
			}
		}
	}()
	stop := func() {
		unix.Write(pipe[1], []byte{0}) //nolint:errcheck // a full pipe wakes the poll as well
		<-done
		unix.Close(pipe[0])
		unix.Close(pipe[1])
	}
	return ended, stop, nil
}
