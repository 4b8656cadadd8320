package ptyhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/ptyhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// toolsOnly returns a PATH holding only the named programs: no tmux, no it2.
func toolsOnly(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			t.Fatalf("%s is needed by this test: %v", n, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// childEnv is the test environment with PATH replaced.
func childEnv(path string) []string {
	var env []string
	for _, kv := range testutil.Env() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+path)
}

func start(t *testing.T, argv ...string) (ptyhost.Options, ptyhost.State) {
	t.Helper()
	o := ptyhost.Options{
		Paths: ptyhost.PathsFor(filepath.Join(testutil.Root(t), "teams", "t"), "worker"),
		Argv:  argv,
		Cwd:   t.TempDir(),
		Rows:  24, Cols: 80,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := ptyhost.Start(ctx, testutil.Binary(t), childEnv(toolsOnly(t, "cat", "sh", "sleep", "stty")), o)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { ptyhost.Kill(context.Background(), o.Paths.State, st.HostPID, st.HostStart) })
	return o, st
}

func fileHas(path, s string) func() bool {
	return func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), s)
	}
}

func TestAttachTypesInAndShowsOutputThenDetaches(t *testing.T) {
	o, st := start(t, "cat")
	if !st.HostAlive() || !st.ChildAlive() {
		t.Fatalf("after Start the host and cat must run: %+v", st)
	}
	inR, inW := io.Pipe()
	var out testutil.Buffer
	done := make(chan error, 1)
	go func() {
		done <- ptyhost.Attach(context.Background(), o.Paths.Socket, ptyhost.AttachOptions{
			In: inR, Out: &out, Size: ptyhost.Size{Rows: 30, Cols: 100}, DetachKey: 0x1d,
		})
	}()
	io.WriteString(inW, "hello from the test\r")
	// The terminal echoes the line, then cat prints it again.
	testutil.Eventually(t, 10*time.Second, "cat's output did not reach the attached client", func() bool {
		return strings.Count(out.String(), "hello from the test") >= 2
	})
	testutil.Eventually(t, 5*time.Second, "the output is not in the log", fileHas(o.Paths.Log, "hello from the test"))

	io.WriteString(inW, "\x1d")
	select {
	case err := <-done:
		if !errors.Is(err, ptyhost.ErrDetached) {
			t.Fatalf("detach key: Attach returned %v, want ErrDetached", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Attach did not return after the detach key")
	}
	if !ptyhost.Alive(st.HostPID, st.HostStart) || !st.ChildAlive() {
		t.Fatal("detaching must leave the teammate running")
	}

	// A second client first sees the recent output, and its size reaches
	// the command's terminal.
	var again testutil.Buffer
	inR2, inW2 := io.Pipe()
	go ptyhost.Attach(context.Background(), o.Paths.Socket, ptyhost.AttachOptions{In: inR2, Out: &again, DetachKey: 0x1d})
	testutil.Eventually(t, 5*time.Second, "a new client did not see the recent output", func() bool {
		return strings.Contains(again.String(), "hello from the test")
	})
	inW2.Close()
}

func TestResizeReachesTheCommand(t *testing.T) {
	o, _ := start(t, "sh", "-c", `trap 'stty size' WINCH; stty size; while :; do sleep 0.05; done`)
	testutil.Eventually(t, 5*time.Second, "initial size 24 80 not printed", fileHas(o.Paths.Log, "24 80"))
	resize := make(chan ptyhost.Size, 1)
	inR, inW := io.Pipe()
	defer inW.Close()
	go ptyhost.Attach(context.Background(), o.Paths.Socket, ptyhost.AttachOptions{
		In: inR, Out: io.Discard, Size: ptyhost.Size{Rows: 33, Cols: 111}, Resize: resize,
	})
	testutil.Eventually(t, 5*time.Second, "the attach size did not reach the command", fileHas(o.Paths.Log, "33 111"))
	resize <- ptyhost.Size{Rows: 44, Cols: 122}
	testutil.Eventually(t, 5*time.Second, "a resize did not reach the command", fileHas(o.Paths.Log, "44 122"))
}

func TestKillEndsCommandAndHost(t *testing.T) {
	o, st := start(t, "sh", "-c", "trap '' HUP; exec sleep 1000") // ignores the hangup: must be killed
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := ptyhost.Kill(ctx, o.Paths.State, st.HostPID, st.HostStart); err != nil {
		t.Fatal(err)
	}
	if ptyhost.Alive(st.HostPID, st.HostStart) || st.ChildAlive() {
		t.Fatal("after Kill the host and its command must be gone")
	}
	if _, err := os.Stat(o.Paths.Socket); err == nil {
		t.Fatal("the attach socket outlived its host")
	}
	if err := ptyhost.Kill(ctx, o.Paths.State, st.HostPID, st.HostStart); err != nil {
		t.Fatalf("killing a teammate already gone must succeed: %v", err)
	}
}

func TestHostDeathIsDetectedAndKillStillCleansUp(t *testing.T) {
	o, st := start(t, "sh", "-c", "trap '' HUP; exec sleep 1000")
	syscall.Kill(st.HostPID, syscall.SIGKILL)
	testutil.Eventually(t, 5*time.Second, "a SIGKILLed host still counts as alive", func() bool {
		return !ptyhost.Alive(st.HostPID, st.HostStart)
	})
	if err := ptyhost.Kill(context.Background(), o.Paths.State, st.HostPID, st.HostStart); err != nil {
		t.Fatal(err)
	}
	if st.ChildAlive() {
		t.Fatal("Kill left the command of a dead host running")
	}
}

// TestKillSparesAnUnprovenPid: a state file naming a command pid without
// its start time (a record paneteam cannot prove) must not make Kill
// signal that pid or its process group: it may belong to anyone now.
func TestKillSparesAnUnprovenPid(t *testing.T) {
	bystander := exec.Command("sleep", "1000")
	bystander.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { bystander.Wait(); close(exited) }()
	t.Cleanup(func() { bystander.Process.Kill(); <-exited })

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host := gone.Process.Pid
	path := filepath.Join(t.TempDir(), "state.json")
	b, _ := json.Marshal(ptyhost.State{HostPID: host, HostStart: "1", ChildPID: bystander.Process.Pid})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ptyhost.Kill(context.Background(), path, host, "1"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		t.Fatal("Kill signalled a pid recorded without its start time")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestCommandExitEndsHostAndIsRecorded(t *testing.T) {
	o, st := start(t, "sh", "-c", "echo bye; exit 3")
	testutil.Eventually(t, 10*time.Second, "the host outlived its command", func() bool {
		return !ptyhost.Alive(st.HostPID, st.HostStart)
	})
	got, err := ptyhost.ReadState(o.Paths.State)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Exited || got.ExitCode != 3 {
		t.Fatalf("state after exit = %+v, want exited with 3", got)
	}
	if !fileHas(o.Paths.Log, "bye")() || !fileHas(o.Paths.Log, "exited with status 3")() {
		b, _ := os.ReadFile(o.Paths.Log)
		t.Fatalf("log misses the output or the exit:\n%s", b)
	}
}

func TestStartReportsACommandThatCannotRun(t *testing.T) {
	o := ptyhost.Options{
		Paths: ptyhost.PathsFor(filepath.Join(testutil.Root(t), "teams", "t"), "ghost"),
		Argv:  []string{"no-such-program-xyz"},
		Cwd:   t.TempDir(),
	}
	_, err := ptyhost.Start(context.Background(), testutil.Binary(t), childEnv(toolsOnly(t, "sh")), o)
	if err == nil || !strings.Contains(err.Error(), "no-such-program-xyz") {
		t.Fatalf("Start of a missing program: err = %v, want one naming it", err)
	}
}

func TestSocketPathStaysShortUnderDeepRoots(t *testing.T) {
	deep := filepath.Join("/tmp", strings.Repeat("very-long-folder-name/", 8), "teams", "t")
	p := ptyhost.PathsFor(deep, "worker")
	if len(p.Socket) > 100 {
		t.Fatalf("socket path is %d bytes: %s", len(p.Socket), p.Socket)
	}
	if p2 := ptyhost.PathsFor(deep, "worker"); p2.Socket != p.Socket {
		t.Fatal("the socket path must be the same for every process")
	}
	if p3 := ptyhost.PathsFor(deep, "other"); p3.Socket == p.Socket {
		t.Fatal("two teammates share a socket path")
	}
	if !strings.HasPrefix(p.Log, deep) {
		t.Fatalf("the log must stay in the team folder: %s", p.Log)
	}
}
