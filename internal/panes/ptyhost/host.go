package ptyhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/paneteam/paneteam/internal/sys/proc"
)

// How long the command gets to end after its terminal hangs up before it
// is killed, and how long its last output may take to arrive.
const (
	hangupGrace = 3 * time.Second
	drainWait   = 2 * time.Second
)

// Serve is the host: it runs o.Argv under a pseudo-terminal until the
// command ends or the host is told to stop (SIGTERM, SIGINT, SIGHUP or
// ctx), and serves attach clients meanwhile. Once the command runs, it
// writes "ok PID\n" to ready and closes it; a failure before that is
// written as "error: ...\n" instead. Everything after goes to the log.
func Serve(ctx context.Context, o Options, ready io.WriteCloser) (err error) {
	defer func() {
		if ready != nil && err != nil {
			fmt.Fprintf(ready, "error: %v\n", err)
			ready.Close()
		}
	}()
	lg, err := openLog(o.Paths, o.MaxLog)
	if err != nil {
		return err
	}
	defer lg.Close()
	ln, err := listen(o.Paths.Socket)
	if err != nil {
		return err
	}
	defer os.Remove(o.Paths.Socket)
	defer ln.Close()

	fmt.Fprintf(lg, "[paneteam] %s: started %s\r\n", time.Now().Format(time.RFC3339), strings.Join(o.Argv, " "))
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Dir = o.Cwd
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(o.Rows), Cols: uint16(o.Cols)})
	if err != nil {
		fmt.Fprintf(lg, "[paneteam] could not start %s: %v\r\n", o.Argv[0], err)
		return fmt.Errorf("start %s: %w", o.Argv[0], err)
	}
	defer master.Close()
	st := newState(o, cmd.Process.Pid)
	if err := writeState(o.Paths.State, st); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	fmt.Fprintf(ready, "ok %d\n", cmd.Process.Pid)
	ready.Close()
	ready = nil

	h := newHub()
	outDone := make(chan struct{})
	go func() { // the only reader of the terminal, the only writer of the log
		defer close(outDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				lg.Write(buf[:n])
				h.write(buf[:n])
			}
			if err != nil { // EIO once the command and its children have closed the terminal
				return
			}
		}
	}()
	go acceptLoop(ln, h, master)

	code := waitOrStop(ctx, cmd)
	select {
	case <-outDone:
	case <-time.After(drainWait):
	}
	st.Exited, st.ExitCode = true, code
	writeState(o.Paths.State, st)
	fmt.Fprintf(lg, "\r\n[paneteam] %s: %s exited with status %d\r\n", time.Now().Format(time.RFC3339), o.Argv[0], code)
	h.closeAll()
	return nil
}

func newState(o Options, child int) State {
	self := os.Getpid()
	hs, _ := proc.StartTime(self)
	cs, _ := proc.StartTime(child)
	return State{
		HostPID: self, HostStart: hs, ChildPID: child, ChildStart: cs,
		Argv: o.Argv, Cwd: o.Cwd, Socket: o.Paths.Socket, Log: o.Paths.Log,
		StartedAt: time.Now().UTC().Format(time.RFC3339Nano),
	}
}

// waitOrStop waits for the command; when the host is asked to stop, it
// hangs up the command's terminal session first (SIGHUP to its process
// group, as a closing terminal does) and kills it after hangupGrace.
func waitOrStop(ctx context.Context, cmd *exec.Cmd) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-sigs:
		stopGroup(cmd.Process.Pid, done)
	case <-ctx.Done():
		stopGroup(cmd.Process.Pid, done)
	}
	<-done
	return cmd.ProcessState.ExitCode()
}

// stopGroup ends the session the command leads: pty.Start made it a
// session and process-group leader, so -pid reaches its children too.
func stopGroup(pid int, done <-chan struct{}) {
	syscall.Kill(-pid, syscall.SIGHUP)
	syscall.Kill(-pid, syscall.SIGCONT)
	select {
	case <-done:
	case <-time.After(hangupGrace):
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// listen opens the attach socket. A socket file left by a dead host is
// replaced; one that still answers belongs to a live host, which is an
// error: two hosts must never run the same teammate.
func listen(path string) (*sockListener, error) {
	if err := ensureSocketDir(path); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	c, err := dialUnix(ctx, path)
	cancel()
	if err == nil {
		c.Close()
		return nil, fmt.Errorf("a host already serves %s: kill that teammate first", path)
	}
	if err := os.Remove(path); err != nil && !notExist(err) {
		return nil, fmt.Errorf("remove stale socket: %w", err)
	}
	ln, err := listenUnix(path)
	if err != nil {
		return nil, fmt.Errorf("attach socket: %w", err)
	}
	os.Chmod(path, 0o600)
	return ln, nil
}

func acceptLoop(ln *sockListener, h *hub, master *os.File) {
	var inputMu sync.Mutex // keystrokes from two clients never interleave mid-chunk
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		c := h.add(conn)
		go func() {
			defer h.remove(c)
			serveClient(conn, master, &inputMu)
		}()
	}
}

func serveClient(conn *os.File, master *os.File, inputMu *sync.Mutex) {
	var buf []byte
	for {
		typ, p, err := readFrame(conn, buf)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				conn.Close()
			}
			return
		}
		buf = p
		switch typ {
		case frameInput:
			inputMu.Lock()
			_, err = master.Write(p)
			inputMu.Unlock()
		case frameResize:
			if rows, cols, ok := parseResize(p); ok && rows > 0 && cols > 0 {
				// The kernel sends SIGWINCH to the foreground process group.
				err = pty.Setsize(master, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
			}
		}
		if err != nil {
			return
		}
	}
}
