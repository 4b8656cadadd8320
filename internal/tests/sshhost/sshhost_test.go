package sshhost

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The host is another machine as far as a test can tell: its own
// hostname, an empty home, the hidden lead folder empty, and nothing left
// running once the test ends.
func TestHostIsSeparate(t *testing.T) {
	lead := t.TempDir()
	if err := os.WriteFile(filepath.Join(lead, "secret"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := Start(t, Options{Hide: []string{lead}})
	out := h.MustRun(t, "hostname; ls -A "+Home+" | wc -l; ls -A "+lead+" | wc -l; echo $HOME")
	if got := strings.Fields(out); len(got) != 4 || got[0] != "paneteam-remote" || got[1] != "0" || got[2] != "0" || got[3] != Home {
		t.Fatalf("the host is not separate from this machine: %q", out)
	}
	h.MustRun(t, "mkdir "+Home+"/.claude && touch "+lead+"/written-on-host")
	if _, err := os.Stat(filepath.Join(lead, "written-on-host")); err == nil {
		t.Fatal("a write on the host reached the lead's folder")
	}
}

func TestStrangerAndNoKeyAreRefused(t *testing.T) {
	h := Start(t, Options{})
	out, err := exec.Command("ssh", "-F", h.Config, "-o", "BatchMode=yes", Stranger, "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Host key verification failed") {
		t.Fatalf("an unknown host key was accepted: %v %s", err, out)
	}
	out, err = exec.Command("ssh", "-F", h.Config, "-o", "BatchMode=yes", NoKey, "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Fatalf("a login without the client key was accepted: %v %s", err, out)
	}
}

// Drop ends a session at once; a freeze holds it until thawed.
func TestProxyDropAndFreeze(t *testing.T) {
	h := Start(t, Options{})
	cmd := exec.Command("ssh", "-F", h.Config, "-o", "BatchMode=yes", Alias, "echo up; exec sleep 60")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Drop only once the session is up: Drop ends the connections the
	// proxy carries at that moment.
	up := make([]byte, 3)
	if _, err := io.ReadFull(stdout, up); err != nil || string(up) != "up\n" {
		cmd.Process.Kill()
		t.Fatalf("ssh session did not start: %q %v", up, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	h.Proxy.Drop()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("ssh succeeded across a dropped connection")
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatal("a dropped connection did not end ssh")
	}

	login := func() {
		if out, err := exec.Command("ssh", "-F", h.Config, "-o", "BatchMode=yes", Alias, "true").CombinedOutput(); err != nil {
			t.Fatalf("login through the proxy: %v %s", err, out)
		}
	}
	h.Proxy.Freeze()
	start := time.Now()
	go func() { time.Sleep(time.Second); h.Proxy.Thaw() }()
	login()
	if time.Since(start) < time.Second {
		t.Fatal("a frozen connection carried a login")
	}

	h.Proxy.SetDelay(50 * time.Millisecond)
	start = time.Now()
	login()
	if time.Since(start) < 300*time.Millisecond {
		t.Fatalf("a login took %s with 100 ms round trips", time.Since(start))
	}
}

func TestLoginShell(t *testing.T) {
	h := Start(t, Options{Shell: "/bin/dash"})
	if out, err := exec.Command("ssh", "-F", h.Config, "-o", "BatchMode=yes", Alias, "echo $0").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "/bin/dash" && strings.TrimSpace(string(out)) != "dash" {
		t.Fatalf("login shell: %v %q", err, out)
	}
}

// A shared folder under the host's home is there, read-only; SetEnv
// reaches every session.
func TestShareAndSetEnv(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("SKIPPED: no home folder")
	}
	shared, err := os.MkdirTemp(home, ".sshhost-share-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shared)
	os.WriteFile(filepath.Join(shared, "f"), []byte("shared"), 0o600)
	h := Start(t, Options{Share: []string{shared}, SetEnv: []string{"PT_HELLO=there"}})
	out := h.MustRun(t, "cat "+shared+"/f; echo \" $PT_HELLO\"; touch "+shared+"/g 2>/dev/null && echo writable; ls -A "+Home+" | wc -l")
	if strings.Fields(out)[0] != "shared" || !strings.Contains(out, " there") || strings.Contains(out, "writable") {
		t.Fatalf("on the host: %q", out)
	}
}
