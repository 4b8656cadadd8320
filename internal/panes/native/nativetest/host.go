package nativetest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// HostCommand is the hidden first argument under which a fake terminal's
// binary runs as the host of one pane: `<fake> __pane-host STATE ID`.
const HostCommand = "__pane-host"

// hangupGrace is how long a pane's program gets after its terminal hangs
// up before it is killed (as a closing terminal does).
const hangupGrace = 2 * time.Second

// StartPane starts the host of pane id, already in the state file, with
// the fake's own binary, detached (own session, stdio on /dev/null) so it
// outlives the CLI call, and returns once the pane's program runs. When
// the program cannot start, the pane is removed and the error returned.
func StartPane(statePath string, id int) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe, HostCommand, statePath, strconv.Itoa(id))
	cmd.ExtraFiles = []*os.File{w} // fd 3: the ready line
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return err
	}
	go cmd.Wait()
	line, _ := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "ok" {
		return nil
	}
	Update(statePath, func(s *State) error { s.Remove(id); return nil })
	if msg, ok := strings.CutPrefix(line, "error: "); ok {
		return errors.New(msg)
	}
	return fmt.Errorf("pane host ended before the program started")
}

// RunHost is the pane host's main: args are STATE ID.
func RunHost(args []string) error {
	ready := os.NewFile(3, "ready")
	fail := func(err error) error {
		fmt.Fprintf(ready, "error: %v\n", err)
		ready.Close()
		return err
	}
	if len(args) != 2 {
		return fail(fmt.Errorf("usage: %s STATE ID", HostCommand))
	}
	statePath := args[0]
	id, err := strconv.Atoi(args[1])
	if err != nil {
		return fail(err)
	}
	st, err := Load(statePath)
	if err != nil {
		return fail(err)
	}
	p, ok := st.Pane(id)
	if !ok {
		return fail(fmt.Errorf("pane %d is not in the state", id))
	}
	if len(p.Argv) == 0 {
		return fail(errors.New("no program to run"))
	}
	prog, err := lookPath(p.Argv[0], p.Env)
	if err != nil {
		return fail(fmt.Errorf("Unable to spawn %s because: %w", p.Argv[0], err))
	}
	cmd := exec.Command(prog, p.Argv[1:]...)
	cmd.Args[0] = p.Argv[0]
	cmd.Env = p.Env
	cmd.Dir = p.Cwd
	screen, err := os.OpenFile(ScreenPath(statePath, id), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fail(err)
	}
	defer screen.Close()
	in := InputPath(statePath, id)
	os.Remove(in)
	if err := syscall.Mkfifo(in, 0o600); err != nil {
		return fail(fmt.Errorf("input fifo: %w", err))
	}
	defer os.Remove(in)
	// Read-write so the FIFO never reports end of file between writers.
	fifo, err := os.OpenFile(in, os.O_RDWR, 0)
	if err != nil {
		return fail(err)
	}
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(max(p.Rows, 2)), Cols: uint16(max(p.Cols, 2))})
	if err != nil {
		return fail(fmt.Errorf("Unable to spawn %s because: %w", p.Argv[0], err))
	}
	defer master.Close()
	child := cmd.Process.Pid
	err = Update(statePath, func(s *State) error {
		if q, ok := s.Pane(id); ok {
			q.HostPID, q.PID = os.Getpid(), child
			// The program's terminal, as Linux names it.
			if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", child)); err == nil {
				q.TTY = l
			}
		}
		return nil
	})
	if err != nil {
		syscall.Kill(-child, syscall.SIGKILL)
		return fail(err)
	}
	fmt.Fprintln(ready, "ok")
	ready.Close()

	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		io.Copy(screen, master) // ends with EIO once the terminal's last user closes it
	}()
	go io.Copy(master, fifo)

	code := waitOrHangup(cmd)
	select {
	case <-outDone:
	case <-time.After(time.Second):
	}
	return Update(statePath, func(s *State) error {
		q, ok := s.Pane(id)
		if !ok || q.HostPID != os.Getpid() {
			return nil // killed by the terminal: already gone
		}
		if q.CloseOnExit {
			s.Remove(id)
			return nil
		}
		q.Exited, q.ExitStatus = true, code
		return nil
	})
}

// waitOrHangup waits for the program; told to stop (the terminal closed
// the pane), it hangs up the program's session as a closing terminal
// does, and kills it after hangupGrace.
func waitOrHangup(cmd *exec.Cmd) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-sigs:
		pid := cmd.Process.Pid
		syscall.Kill(-pid, syscall.SIGHUP)
		syscall.Kill(-pid, syscall.SIGCONT)
		select {
		case <-done:
		case <-time.After(hangupGrace):
			syscall.Kill(-pid, syscall.SIGKILL)
			<-done
		}
	}
	return cmd.ProcessState.ExitCode()
}

// lookPath finds a program on the PATH of the pane's environment, as the
// terminal's spawn does.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if _, err := os.Stat(name); err != nil {
			return "", err
		}
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			dir = "."
		}
		f := dir + "/" + name
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	return "", fmt.Errorf("no viable candidates found in PATH %q", path)
}

// KillHost ends pane p's host, which hangs up its program: what closing a
// pane in the terminal does.
func KillHost(p Pane) {
	if p.HostPID > 0 {
		syscall.Kill(p.HostPID, syscall.SIGTERM)
	}
}
