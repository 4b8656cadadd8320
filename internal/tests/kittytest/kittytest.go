// Package kittytest starts a real kitty for a test: a private Xvfb display,
// kitty with no user configuration and remote control on a private socket,
// and helpers to read a kitty window's screen and type into it. Everything
// it starts ends when the test does.
//
//	k := kittytest.Start(t, kittytest.Options{Argv: []string{"sleep", "600"}})
//	out := k.Must(t, "ls")                 // kitty @ --to <socket> ls
//	k.SendText(t, k.Window, "hello\r")
//	testutil.Eventually(t, 5*time.Second, "hello shows", func() bool {
//		return strings.Contains(k.Text(t, k.Window), "hello")
//	})
package kittytest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Options is the kitty to start.
type Options struct {
	// Argv is the program of kitty's first window (default: sleep 600).
	Argv []string
	// Env is added (KEY=VALUE) to the first window's environment, and so
	// to every window kitty opens.
	Env []string
	// Cwd is the first window's working folder (default: a temp folder).
	Cwd string
	// NoRemoteControl starts kitty listening on its socket but with
	// remote control off, as kitty is out of the box.
	NoRemoteControl bool
	// Config holds extra kitty.conf settings as -o KEY=VALUE, e.g.
	// "enabled_layouts=tall".
	Config []string
}

// Kitty is one running kitty on its own X display.
type Kitty struct {
	// Addr is kitty's remote-control address, "unix:<path>", as kitty
	// puts it in KITTY_LISTEN_ON.
	Addr string
	// Window is the id of kitty's first window.
	Window string
	// Env is what a program in the first window sees of kitty: its
	// KITTY_LISTEN_ON, KITTY_WINDOW_ID, KITTY_PID, TERM and DISPLAY.
	Env []string
	// Bin is the kitty program.
	Bin string
	// Dir is the kitty's private temp folder (HOME, XDG folders, socket).
	Dir string

	clientEnv []string
}

// Start starts Xvfb and kitty, waits until kitty answers remote control
// (or, with NoRemoteControl, until its socket exists), and stops both when
// the test ends. It skips the test (fails under PANETEAM_REQUIRE_ALL=1)
// when kitty or Xvfb is missing.
func Start(t testing.TB, o Options) *Kitty {
	t.Helper()
	bin := testutil.RequireTool(t, "kitty")
	display := startXvfb(t)
	dir := testutil.ShortTempDir(t)
	home := filepath.Join(dir, "h")
	for _, d := range []string{home, filepath.Join(home, ".config"), filepath.Join(home, ".cache"), filepath.Join(dir, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	k := &Kitty{Addr: "unix:" + filepath.Join(dir, "k.sock"), Bin: bin, Dir: dir}
	env := []string{
		"DISPLAY=:" + display,
		"LIBGL_ALWAYS_SOFTWARE=1",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"SHELL=/bin/sh",
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
	}
	k.clientEnv = env
	argv := o.Argv
	if len(argv) == 0 {
		argv = []string{"sleep", "600"}
	}
	rc := "yes"
	if o.NoRemoteControl {
		rc = "no"
	}
	args := []string{"--config", "NONE",
		"-o", "allow_remote_control=" + rc,
		"-o", "linux_display_server=x11",
		"-o", "remember_window_size=no",
		"-o", "initial_window_width=1000",
		"-o", "initial_window_height=600",
		"-o", "confirm_os_window_close=0",
		"-o", "update_check_interval=0",
		"-o", "enable_audio_bell=no",
	}
	for _, c := range o.Config {
		args = append(args, "-o", c)
	}
	for _, e := range o.Env {
		args = append(args, "-o", "env="+e)
	}
	cwd := o.Cwd
	if cwd == "" {
		cwd = t.TempDir()
	}
	args = append(args, "--listen-on", k.Addr, "--directory", cwd, "--")
	ready := ""
	if o.NoRemoteControl {
		// kitty opens no socket then: the first window's program
		// starting says kitty is up.
		ready = filepath.Join(dir, "ready")
		args = append(args, "/bin/sh", "-c", `: > "$0"; exec "$@"`, ready)
	}
	args = append(args, argv...)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = cwd
	var log testutil.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kitty: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { stop(cmd, done) })

	k.waitReady(t, ready, done, &log)
	if o.NoRemoteControl {
		k.Window = "1"
	} else {
		k.Window = k.firstWindow(t)
	}
	k.Env = []string{
		"KITTY_LISTEN_ON=" + k.Addr,
		"KITTY_WINDOW_ID=" + k.Window,
		"KITTY_PID=" + strconv.Itoa(cmd.Process.Pid),
		"TERM=xterm-kitty",
		"DISPLAY=:" + display,
	}
	return k
}

// Getenv reads k.Env, for a native.Env of a program in the first window.
func (k *Kitty) Getenv(key string) string {
	for _, kv := range k.Env {
		if strings.HasPrefix(kv, key+"=") {
			return kv[len(key)+1:]
		}
	}
	return ""
}

// Run runs `kitty @ --to <Addr> args...` and returns its stdout.
func (k *Kitty) Run(args ...string) (string, error) { return k.run("", args...) }

func (k *Kitty) run(input string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.Bin, append([]string{"@", "--to", k.Addr}, args...)...)
	cmd.Env = k.clientEnv
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kitty @ %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// Must is Run that fails the test on an error.
func (k *Kitty) Must(t testing.TB, args ...string) string {
	t.Helper()
	out, err := k.Run(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Text is the text on a window's screen now (kitty @ get-text).
func (k *Kitty) Text(t testing.TB, window string) string {
	t.Helper()
	return k.Must(t, "get-text", "--match", "id:"+window)
}

// SendText types text into a window as if pasted from the keyboard,
// without kitty's escape processing: "\r" is Enter for a program reading
// a plain terminal. A program that turned on kitty's keyboard protocol
// (Claude Code does) reads Enter as ESC[13u: send EnterCSIu for it.
func (k *Kitty) SendText(t testing.TB, window, text string) {
	t.Helper()
	if _, err := k.run(text, "send-text", "--match", "id:"+window, "--stdin"); err != nil {
		t.Fatal(err)
	}
}

// EnterCSIu is Enter as a program that enabled kitty's keyboard protocol
// reads it.
const EnterCSIu = "\x1b[13u"

// LS is kitty's `ls` answer: OS windows, their tabs and windows.
type LS []struct {
	ID   int `json:"id"`
	Tabs []struct {
		ID          int             `json:"id"`
		Title       string          `json:"title"`
		Layout      string          `json:"layout"`
		LayoutState json.RawMessage `json:"layout_state"`
		IsActive    bool            `json:"is_active_tab"`
		Windows     []LSWindow      `json:"windows"`
	} `json:"tabs"`
}

// LSWindow is one window of LS.
type LSWindow struct {
	ID       int      `json:"id"`
	Title    string   `json:"title"`
	PID      int      `json:"pid"`
	Cwd      string   `json:"cwd"`
	Cmdline  []string `json:"cmdline"`
	Columns  int      `json:"columns"`
	Lines    int      `json:"lines"`
	IsActive bool     `json:"is_active_window"`
	Focused  bool     `json:"is_focused"`
}

// List is kitty's ls, parsed.
func (k *Kitty) List(t testing.TB) LS {
	t.Helper()
	var ls LS
	if err := json.Unmarshal([]byte(k.Must(t, "ls")), &ls); err != nil {
		t.Fatalf("kitty @ ls: %v", err)
	}
	return ls
}

// Find returns the window with the id and the id of its tab.
func (ls LS) Find(window string) (w LSWindow, tab int, ok bool) {
	for _, o := range ls {
		for _, tb := range o.Tabs {
			for _, x := range tb.Windows {
				if strconv.Itoa(x.ID) == window {
					return x, tb.ID, true
				}
			}
		}
	}
	return LSWindow{}, 0, false
}

func (k *Kitty) waitReady(t testing.TB, ready string, done chan struct{}, log *testutil.Buffer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatalf("kitty exited while starting: %s", log.String())
		default:
		}
		if ready != "" {
			if _, err = os.Stat(ready); err == nil {
				return
			}
		} else if _, err = k.Run("ls"); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("kitty did not answer on %s: %v\n%s", k.Addr, err, log.String())
}

func (k *Kitty) firstWindow(t testing.TB) string {
	t.Helper()
	for _, o := range k.List(t) {
		for _, tb := range o.Tabs {
			for _, w := range tb.Windows {
				return strconv.Itoa(w.ID)
			}
		}
	}
	t.Fatal("kitty has no window")
	return ""
}

// startXvfb starts Xvfb on a display it picks itself (-displayfd) and
// returns the display number.
func startXvfb(t testing.TB) string {
	t.Helper()
	bin := testutil.RequireTool(t, "Xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "1280x800x24")
	cmd.ExtraFiles = []*os.File{w}
	var log testutil.Buffer
	cmd.Stderr = &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { stop(cmd, done) })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "" {
			t.Fatalf("Xvfb gave no display: %s", log.String())
		}
		return s
	case <-time.After(10 * time.Second):
		t.Fatalf("Xvfb gave no display in 10s: %s", log.String())
	}
	return ""
}

// stop ends a process started with its own process group: SIGTERM, then
// SIGKILL if it is still there after two seconds.
func stop(cmd *exec.Cmd, done chan struct{}) {
	pgid := cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}
