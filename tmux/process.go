package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runProcess runs the program bin (looked up in PATH) with argv and env
// (nil: this process's), stdin reading nothing, and returns what it wrote
// on stdout and stderr. A non-zero exit is an *ExitError; a program that is
// not there is exec.LookPath's *exec.Error.
//
// It is os/exec's Run cut down to what a tmux client needs, because the
// status line runs one tmux call on every refresh of every client: no
// goroutines copying the pipes or watching ctx (one poll loop here), no
// pidfd probe (os forks a throwaway child to test for pidfd support on a
// process's first start). Together about 0.3 ms
// of CPU per call (bench/startup).
func runProcess(ctx context.Context, bin string, argv, env []string) (stdout, stderr []byte, err error) {
	// exec.LookPath, not program.Find: bin may be a path (Server.Bin),
	// the PATH is this process's, and a program found through a
	// relative PATH entry is refused (exec.ErrDot) rather than run.
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	null, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer syscall.Close(null)
	var outP, errP [2]int
	if err := cloexecPipe(outP[:]); err != nil {
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	if err := cloexecPipe(errP[:]); err != nil {
		syscall.Close(outP[0])
		syscall.Close(outP[1])
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{uintptr(null), uintptr(outP[1]), uintptr(errP[1])},
	})
	syscall.Close(outP[1])
	syscall.Close(errP[1])
	if err != nil {
		syscall.Close(outP[0])
		syscall.Close(errP[0])
		return nil, nil, &exec.Error{Name: bin, Err: err}
	}

	// Kill the child if ctx ends first. No watcher goroutine: the poll
	// below wakes every ctxCheck to look, and only then asks ctx (asking
	// paneteam's top context installs its signal handler, which a tmux call
	// that ends at once has no need for).
	deadline, hasDeadline := ctx.Deadline()
	killed := false
	check := func() {
		if killed {
			return
		}
		if ctx.Err() != nil || (hasDeadline && !time.Now().Before(deadline)) {
			syscall.Kill(pid, syscall.SIGKILL)
			killed = true
		}
	}
	wait := func() int {
		d := ctxCheck
		if hasDeadline {
			d = min(d, time.Until(deadline))
		}
		return max(int(d.Milliseconds()), 1)
	}
	stdout, stderr, rerr := readBoth(outP[0], errP[0], wait, check)
	syscall.Close(outP[0])
	syscall.Close(errP[0])
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return stdout, stderr, fmt.Errorf("wait for %s: %w", bin, err)
	}
	if rerr != nil {
		return stdout, stderr, fmt.Errorf("read from %s: %w", bin, rerr)
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		return stdout, stderr, &ExitError{Status: ws}
	}
	return stdout, stderr, nil
}

// readBoth reads the two pipes to their ends, whichever has data first, so
// that a child filling one while the other is read never stalls.
// Between polls that time out (wait gives the timeout in ms) it calls
// check.
func readBoth(outFd, errFd int, wait func() int, check func()) (stdout, stderr []byte, err error) {
	fds := []unix.PollFd{{Fd: int32(outFd), Events: unix.POLLIN}, {Fd: int32(errFd), Events: unix.POLLIN}}
	bufs := [2][]byte{}
	var chunk [16 << 10]byte
	open := 2
	for open > 0 {
		n, err := unix.Poll(fds, wait())
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return bufs[0], bufs[1], err
		}
		if n == 0 {
			check()
			continue
		}
		for i := range fds {
			if fds[i].Fd < 0 || fds[i].Revents == 0 {
				continue
			}
			n, err := syscall.Read(int(fds[i].Fd), chunk[:])
			if err == syscall.EINTR || err == syscall.EAGAIN {
				continue
			}
			if n > 0 {
				bufs[i] = append(bufs[i], chunk[:n]...)
				continue
			}
			// End of this pipe (or an error reading it): stop polling it.
			fds[i].Fd = -1
			open--
			if err != nil {
				return bufs[0], bufs[1], err
			}
		}
	}
	return bufs[0], bufs[1], nil
}

// ctxCheck is how often a running tmux call looks at its context.
const ctxCheck = 100 * time.Millisecond

// ExitError is a tmux client that exited non-zero or was killed.
type ExitError struct {
	Status syscall.WaitStatus
}

func (e *ExitError) Error() string {
	if e.Status.Signaled() {
		return "signal: " + e.Status.Signal().String()
	}
	return fmt.Sprintf("exit status %d", e.Status.ExitStatus())
}
