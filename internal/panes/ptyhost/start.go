package ptyhost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
)

// StartTimeout bounds how long Start waits for the host to report that the
// command runs.
const StartTimeout = 15 * time.Second

// Start launches a host for o with the paneteam binary exe, detached from
// the caller (its own session, stdio on /dev/null) so it outlives it, and
// returns once the host reports the command running. env is the command's
// whole environment.
func Start(ctx context.Context, exe string, env []string, o Options) (State, error) {
	if old, err := ReadState(o.Paths.State); err == nil && old.HostAlive() {
		return State{}, fmt.Errorf("a host (pid %d) already runs %s: kill that teammate first", old.HostPID, o.Paths.Log)
	}
	if err := o.Paths.ensureDir(); err != nil {
		return State{}, fmt.Errorf("teammate folder: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return State{}, fmt.Errorf("start teammate host: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(exe, append([]string{HostCommand}, o.Args()...)...)
	cmd.Env = env
	cmd.Dir = o.Cwd
	cmd.ExtraFiles = []*os.File{w} // fd 3: the ready line
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return State{}, fmt.Errorf("start teammate host: %w", err)
	}
	// Reap the host if it ends while this process still lives; otherwise
	// a zombie would look alive to Alive. Once this process exits, init
	// adopts the host.
	go cmd.Wait()

	line, err := readReady(ctx, r)
	if err != nil {
		cmd.Process.Kill()
		return State{}, fmt.Errorf("start %s: %w (see %s)", o.Argv[0], err, o.Paths.Log)
	}
	if msg, ok := strings.CutPrefix(line, "error: "); ok {
		return State{}, errors.New(msg)
	}
	if !strings.HasPrefix(line, "ok ") {
		cmd.Process.Kill()
		return State{}, fmt.Errorf("start %s: the host said %q", o.Argv[0], line)
	}
	return ReadState(o.Paths.State)
}

func readReady(ctx context.Context, r *os.File) (string, error) {
	wait := StartTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
		wait = time.Until(d)
	}
	r.SetReadDeadline(time.Now().Add(wait))
	line, err := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case line != "":
		return line, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "", fmt.Errorf("the teammate host did not report within %s", wait.Round(time.Millisecond))
	default:
		return "", errors.New("the teammate host exited before starting the command")
	}
}

// Alive reports whether the host named by pid and start still runs. A
// host without a recorded start time cannot be told from a later process
// that reuses its pid, so it counts as gone.
func Alive(pid int, start string) bool {
	return pid > 0 && start != "" && proc.Alive(pid, start)
}

// killWait bounds how long Kill waits for the host to end the command and
// itself before it kills both outright.
const killWait = hangupGrace + drainWait + time.Second

// Kill ends a hosted teammate and its host, given the host's pid and start
// time and its state file. The host is asked first (SIGTERM: it hangs up
// the command's terminal and records how it ended); what still runs after
// killWait is killed, and a command left behind by a host that died is
// killed through the state file. A teammate already gone is success.
// Processes are only signalled when their pid and start time both match
// what was recorded, so a reused pid is never hit.
func Kill(ctx context.Context, statePath string, hostPID int, hostStart string) error {
	if st, err := ReadState(statePath); err == nil && hostStart == "" && st.HostPID == hostPID {
		hostStart = st.HostStart
	}
	if Alive(hostPID, hostStart) {
		syscall.Kill(hostPID, syscall.SIGTERM)
		if !waitGone(ctx, func() bool { return Alive(hostPID, hostStart) }, killWait) {
			syscall.Kill(hostPID, syscall.SIGKILL)
			waitGone(ctx, func() bool { return Alive(hostPID, hostStart) }, time.Second)
		}
	}
	if Alive(hostPID, hostStart) {
		return fmt.Errorf("the teammate host (pid %d) did not end", hostPID)
	}
	// Re-read: the host may have recorded the command's end meanwhile.
	st, err := ReadState(statePath)
	if err != nil {
		return nil // nothing recorded: nothing more to end
	}
	if st.ChildAlive() {
		syscall.Kill(-st.ChildPID, syscall.SIGKILL)
		syscall.Kill(st.ChildPID, syscall.SIGKILL)
		if !waitGone(ctx, st.ChildAlive, time.Second) {
			return fmt.Errorf("the teammate's command (pid %d) did not end", st.ChildPID)
		}
	}
	if st.HostPID == hostPID && st.Socket != "" {
		os.Remove(st.Socket) // left behind when the host was killed outright
	}
	return nil
}

// waitGone polls alive until it reports false or d passes; it reports
// whether the process is gone.
func waitGone(ctx context.Context, alive func() bool, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
