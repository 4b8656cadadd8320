package teammate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/mailbox"
)

// Typing: how a message is confirmed read before Enter is pressed.
const (
	// drainPoll is how often the terminal's input queue is checked.
	drainPoll = 2 * time.Millisecond
	// drainQuiet: the queue must read empty this long, because bytes
	// written to the terminal reach its input queue through the kernel's
	// flip buffer a moment later, and because an editor that detects
	// pastes looks at its queue just after each read: Enter must not
	// arrive in between, or it is taken as part of a paste. On a busy
	// machine a program waits tens of milliseconds between its read and
	// that look (15 ms lost an Enter at load 13 on two cores); a person
	// does not notice 50.
	drainQuiet = 50 * time.Millisecond
	// DefaultDrainTimeout is how long a program may take to read a message
	// before Enter is pressed anyway.
	DefaultDrainTimeout = 30 * time.Second
	// Startup: the first message waits until the program has printed
	// something and then been quiet for startupSettle (it is at its
	// prompt), or startupWait has passed: input typed while a program
	// starts is often flushed (shells and line editors discard typeahead).
	startupSettle = 300 * time.Millisecond
	startupWait   = 5 * time.Second
	// stopGrace is how long the program gets after its terminal hangs up.
	stopGrace = 3 * time.Second
)

// Program is a command run under a pseudo-terminal, receiving messages as
// typed input.
type Program struct {
	argv    []string
	cmd     *exec.Cmd
	master  *os.File
	slave   *os.File // kept open here to read the input queue (TIOCINQ)
	slaveFd int

	started   time.Time
	lastOut   atomic.Int64 // unix nanos of the last output
	bracketed atomic.Bool  // the program turned bracketed paste on
	writeMu   sync.Mutex   // a message is typed whole, never interleaved with the user's keys
	ready     bool

	done    chan struct{}
	outDone chan struct{}
	exitErr error
	// DrainTimeout overrides DefaultDrainTimeout.
	DrainTimeout time.Duration
	// EnterDelay is a pause between the text and Enter, for programs that
	// take keys arriving in a burst with an Enter as a paste (Codex).
	EnterDelay time.Duration
}

// ProgramOptions start a Program.
type ProgramOptions struct {
	Dir    string
	Env    []string  // the whole environment; nil inherits this process's
	Mirror io.Writer // receives everything the program prints
	Rows   int
	Cols   int
}

// StartProgram runs argv under a new pseudo-terminal, in its own session
// with the terminal as its controlling terminal.
func StartProgram(argv []string, o ProgramOptions) (*Program, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to run")
	}
	master, slave, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open a pseudo-terminal: %w", err)
	}
	if o.Rows > 0 && o.Cols > 0 {
		pty.Setsize(master, &pty.Winsize{Rows: uint16(o.Rows), Cols: uint16(o.Cols)})
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = o.Dir, o.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	p := &Program{
		argv: argv, cmd: cmd, master: master, slave: slave, slaveFd: int(slave.Fd()),
		started: time.Now(), done: make(chan struct{}), outDone: make(chan struct{}),
	}
	mirror := o.Mirror
	if mirror == nil {
		mirror = io.Discard
	}
	go p.readOutput(mirror)
	go p.wait()
	return p, nil
}

// Bracketed paste mode on and off (DEC private mode 2004).
var (
	pasteOn  = []byte("\x1b[?2004h")
	pasteOff = []byte("\x1b[?2004l")
)

func (p *Program) readOutput(mirror io.Writer) {
	defer close(p.outDone)
	buf := make([]byte, 32<<10)
	var tail []byte // a mode sequence may be split across reads
	for {
		n, err := p.master.Read(buf)
		if n > 0 {
			p.lastOut.Store(time.Now().UnixNano())
			mirror.Write(buf[:n])
			scan := append(tail, buf[:n]...)
			on, off := bytes.LastIndex(scan, pasteOn), bytes.LastIndex(scan, pasteOff)
			if on >= 0 || off >= 0 {
				p.bracketed.Store(on > off)
			}
			tail = append(tail[:0], scan[max(0, len(scan)-len(pasteOn)+1):]...)
		}
		if err != nil {
			return
		}
	}
}

func (p *Program) wait() {
	p.exitErr = p.cmd.Wait()
	// The program's children may hold the terminal a little longer; give
	// its last output a moment, then let the reader go.
	p.writeMu.Lock()
	p.slave.Close()
	p.writeMu.Unlock()
	select {
	case <-p.outDone:
	case <-time.After(time.Second):
	}
	p.master.Close()
	close(p.done)
}

// Input types raw keystrokes (the user's, from the teammate's own terminal).
func (p *Program) Input(b []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_, err := p.master.Write(b)
	return err
}

// Resize sets the program's terminal size (it gets SIGWINCH).
func (p *Program) Resize(rows, cols int) error {
	return pty.Setsize(p.master, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
}

// Deliver types the message, waits until the program has read it, then
// presses Enter and waits until the Enter is read too. Pressing Enter
// only once the text is consumed keeps programs that treat a burst of
// input as a paste from taking the Enter as part of the text.
func (p *Program) Deliver(ctx context.Context, _ mailbox.Message, text string) error {
	if err := p.waitStartup(ctx); err != nil {
		return err
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.master.Write(Keystrokes(text, p.bracketed.Load())); err != nil {
		return fmt.Errorf("type into %s: %w", p.argv[0], err)
	}
	if err := p.drained(ctx); err != nil {
		return err
	}
	if p.EnterDelay > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(p.EnterDelay):
		}
	}
	if _, err := p.master.Write([]byte("\r")); err != nil {
		return fmt.Errorf("press Enter in %s: %w", p.argv[0], err)
	}
	return p.drained(ctx)
}

func (p *Program) waitStartup(ctx context.Context) error {
	for !p.ready {
		last := p.lastOut.Load()
		quiet := last != 0 && time.Since(time.Unix(0, last)) >= startupSettle
		if quiet || time.Since(p.started) >= startupWait {
			p.ready = true
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.done:
			return errors.New("the program has ended")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// drained waits until the program has read everything typed: the input
// queue of its terminal (TIOCINQ on the slave side) stays empty for
// drainQuiet. In canonical mode the kernel counts only complete lines, so
// text without Enter reads as drained at once; that is right, as the line
// discipline then holds the text until Enter and nothing can be lost.
func (p *Program) drained(ctx context.Context) error {
	timeout := p.DrainTimeout
	if timeout <= 0 {
		timeout = DefaultDrainTimeout
	}
	deadline := time.Now().Add(timeout)
	var emptySince time.Time
	for {
		n, err := unix.IoctlGetInt(p.slaveFd, inputQueued)
		if err != nil {
			return fmt.Errorf("%s has ended", p.argv[0])
		}
		now := time.Now()
		switch {
		case n > 0:
			emptySince = time.Time{}
		case emptySince.IsZero():
			emptySince = now
		case now.Sub(emptySince) >= drainQuiet:
			return nil
		}
		if now.After(deadline) {
			return nil // busy for long: press Enter anyway rather than never
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(drainPoll):
		}
	}
}

// LastActivity is when the program last printed.
func (p *Program) LastActivity() time.Time {
	if n := p.lastOut.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// Done is closed once the program has exited.
func (p *Program) Done() <-chan struct{} { return p.done }

// Stop hangs up the program's terminal session (SIGHUP to its process
// group, as closing a terminal does) and kills it if it is still there
// after stopGrace.
func (p *Program) Stop(ctx context.Context) error {
	pid := p.cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGHUP)
	syscall.Kill(-pid, syscall.SIGCONT)
	select {
	case <-p.done:
		return nil
	case <-time.After(stopGrace):
	case <-ctx.Done():
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	select {
	case <-p.done:
		return nil
	case <-time.After(stopGrace):
		return fmt.Errorf("%s (pid %d) did not end after SIGKILL", p.argv[0], pid)
	}
}

// Exit says how the program ended.
func (p *Program) Exit() (string, error) {
	select {
	case <-p.done:
	default:
		return "", nil
	}
	name := strings.Join(p.argv, " ")
	if p.exitErr != nil {
		return fmt.Sprintf("%s ended: %v", name, p.exitErr), fmt.Errorf("%s: %w", name, p.exitErr)
	}
	return name + " exited", nil
}
