package cli

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestTeammateProgramFollowsTheWindow: the teammate wrapper runs in a
// real terminal; the person resizes the window, and the program under it
// sees the new size (its own terminal resized, SIGWINCH to it). When the
// program ends, the terminal is back in its cooked mode.
func TestTeammateProgramFollowsTheWindow(t *testing.T) {
	root, vars := ptRootVars(t)
	if _, errs, code := ptRun(t, vars, "", "team-create", "crew", "--leader-pid", strconv.Itoa(os.Getpid())); code != 0 {
		t.Fatal(errs)
	}
	ptAddMember(t, root, "crew", "w")
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	pty.Setsize(master, &pty.Winsize{Rows: 30, Cols: 100})
	// The program says its size at start and on each SIGWINCH, and ends
	// when typed "q".
	script := `trap 'echo "size $(stty size)"' WINCH; echo "size $(stty size)"; while read -r l; do [ "$l" = q ] && exit 0; done`
	cmd := exec.Command(testutil.Binary(t), "teammate", "--team", "crew", "--name", "w", "--", "sh", "-c", script)
	cmd.Env = []string{"PANETEAM_ROOT=" + root, "HOME=" + vars["HOME"], "PATH=" + os.Getenv("PATH")}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	var screen testutil.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	testutil.Eventually(t, 20*time.Second, "the program to start at the window's size", func() bool {
		return strings.Contains(screen.String(), "size 30 100")
	})
	pty.Setsize(master, &pty.Winsize{Rows: 42, Cols: 137})
	testutil.Eventually(t, 10*time.Second, "the program to see the window's new size", func() error {
		if strings.Contains(screen.String(), "size 42 137") {
			return nil
		}
		return fmt.Errorf("screen: %q", screen.String())
	})
	master.Write([]byte("q\r"))
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the wrapper did not end with its program:\n%q", screen.String())
	}
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ICANON == 0 || tio.Lflag&unix.ECHO == 0 {
		t.Fatal("the wrapper left the terminal in raw mode")
	}
}
