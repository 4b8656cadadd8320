package lockfile

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func target(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "inbox.json")
	if err := os.WriteFile(p, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLockIsClaudeCodesDirectory(t *testing.T) {
	p := target(t)
	unlock, err := Lock(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p + ".lock")
	if err != nil || !st.IsDir() {
		t.Fatalf("while held, %s.lock must be a directory: %v", p, err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock directory left behind after release: %v", err)
	}
}

func TestLiveLockTimesOutNamingThePathAndWritesNothing(t *testing.T) {
	p := target(t)
	if err := os.Mkdir(p+".lock", 0o700); err != nil { // someone else's fresh lock
		t.Fatal(err)
	}
	err := Transform(context.Background(), p, Options{Timeout: 200 * time.Millisecond}, func([]byte) ([]byte, error) {
		return []byte("changed"), nil
	})
	if !IsTimeout(err) || !strings.Contains(err.Error(), p+".lock") {
		t.Fatalf("want a timeout naming %s.lock, got %v", p, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "[]" {
		t.Fatalf("file written despite the timeout: %q", b)
	}
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Fatal("a live lock was stolen")
	}
}

func TestStaleLockIsTakenOver(t *testing.T) {
	p := target(t)
	os.Mkdir(p+".lock", 0o700)
	old := time.Now().Add(-DefaultStale - time.Second)
	os.Chtimes(p+".lock", old, old)
	err := Transform(context.Background(), p, Options{Timeout: 2 * time.Second}, func([]byte) ([]byte, error) {
		return []byte(`["ok"]`), nil
	})
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `["ok"]` {
		t.Fatalf("got %q", b)
	}
}

func TestRegularFileAtLockPathIsReportedAndKept(t *testing.T) {
	p := target(t)
	os.WriteFile(p+".lock", []byte("not a lock"), 0o600)
	_, err := Lock(context.Background(), p, Options{Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "regular file") {
		t.Fatalf("want an error about the regular file, got %v", err)
	}
	if b, _ := os.ReadFile(p + ".lock"); string(b) != "not a lock" {
		t.Fatal("the file at the lock path was touched")
	}
}

func TestCompromisedLockRefusesToWrite(t *testing.T) {
	p := target(t)
	err := Transform(context.Background(), p, Options{}, func([]byte) ([]byte, error) {
		// Another process judged the lock stale and re-made it.
		later := time.Now().Add(time.Hour)
		os.Chtimes(p+".lock", later, later)
		return []byte("changed"), nil
	})
	if !errors.Is(err, ErrCompromised) {
		t.Fatalf("want ErrCompromised, got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "[]" {
		t.Fatalf("wrote through a compromised lock: %q", b)
	}
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Fatal("released (removed) a lock that was no longer ours")
	}
}

func TestHolderRefreshesMtime(t *testing.T) {
	p := target(t)
	unlock, err := Lock(context.Background(), p, Options{Stale: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	st, _ := os.Stat(p + ".lock")
	first := st.ModTime()
	testutil.Eventually(t, 5*time.Second, "the holder never refreshed the lock's mtime; Claude Code would judge it stale", func() bool {
		st, _ := os.Stat(p + ".lock")
		return st.ModTime().After(first)
	})
}

// TestHelperHoldLock is not a test: run as a child, it takes the lock named
// by PT_HOLD_LOCK, says so, and waits to be killed.
func TestHelperHoldLock(t *testing.T) {
	p := os.Getenv("PT_HOLD_LOCK")
	if p == "" {
		t.Skip("helper process only")
	}
	if _, err := Lock(context.Background(), p, Options{}); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("HELD\n")
	time.Sleep(time.Minute)
}

func holdInChild(t *testing.T, p string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "PT_HOLD_LOCK="+p)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.Contains(line, "HELD") {
		cmd.Process.Kill()
		t.Fatalf("helper did not take the lock: %q", line)
	}
	return cmd
}

func TestLockOfKilledPaneteamHolderIsTakenOverAtOnce(t *testing.T) {
	p := target(t)
	child := holdInChild(t, p)
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Fatal("the killed holder's lock directory should still be there")
	}
	// With a stale window of an hour, only the proof that a paneteam holder
	// died can free the lock within the timeout.
	unlock, err := Lock(context.Background(), p, Options{Stale: time.Hour, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("lock of a killed paneteam holder was not taken over: %v", err)
	}
	unlock()
}

// A holder on another machine (a network mount) records its lock in the
// same flock file, but its flock does not exclude this machine's: its
// record names the flock file as it saw it, another device and inode
// than here, and must not pass for a dead local holder's. Modelled by a
// killed holder whose flock file is then replaced by a copy (same bytes,
// another inode): the lock is waited for, not taken over.
func TestRecordWrittenThroughAnotherFileIsNotTrusted(t *testing.T) {
	p := target(t)
	child := holdInChild(t, p)
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	q := QueuePath(p)
	b, err := os.ReadFile(q)
	if err != nil {
		t.Fatal(err)
	}
	// Written beside it first, so the copy cannot reuse the inode.
	if err := os.WriteFile(q+".copy", b, FilePerm); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(q+".copy", q); err != nil {
		t.Fatal(err)
	}
	_, err = Lock(context.Background(), p, Options{Stale: time.Hour, Timeout: 300 * time.Millisecond})
	if !IsTimeout(err) {
		t.Fatalf("a lock recorded through another flock file was taken over (err %v): a live holder on another machine would lose it", err)
	}
}

func TestLiveChildHolderIsWaitedFor(t *testing.T) {
	p := target(t)
	child := holdInChild(t, p)
	defer func() { child.Process.Kill(); child.Wait() }()
	_, err := Lock(context.Background(), p, Options{Stale: time.Hour, Timeout: 300 * time.Millisecond})
	if !IsTimeout(err) {
		t.Fatalf("a live holder's lock must be waited for, got %v", err)
	}
}

const nodeHold = `
const lockfile = require('proper-lockfile');
const [file, ms] = process.argv.slice(1);
lockfile.lock(file, { lockfilePath: file + '.lock', onCompromised: (e) => { console.log('COMPROMISED ' + e.code); process.exit(3); } })
  .then(async (release) => {
    console.log('LOCKED');
    await new Promise((r) => setTimeout(r, Number(ms)));
    await release();
    console.log('RELEASED');
  })
  .catch((e) => { console.log('FAILED ' + e.code); process.exit(2); });
`

const nodeTake = `
const lockfile = require('proper-lockfile');
const [file] = process.argv.slice(1);
lockfile.lock(file, { lockfilePath: file + '.lock', retries: { retries: 10, minTimeout: 5, maxTimeout: 100 } })
  .then(async (release) => { console.log('LOCKED'); await release(); })
  .catch((e) => { console.log('FAILED ' + e.code); process.exit(2); });
`

func TestClaudeCodesLockIsHonoured(t *testing.T) {
	mods := testutil.NodeModules(t)
	p := target(t)
	node := exec.Command("node", "-e", nodeHold, p, "800")
	node.Env = append(os.Environ(), "NODE_PATH="+mods)
	out, _ := node.StdoutPipe()
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	if line, _ := r.ReadString('\n'); !strings.Contains(line, "LOCKED") {
		t.Fatalf("node did not lock: %q", line)
	}
	if _, err := Lock(context.Background(), p, Options{Timeout: 100 * time.Millisecond}); !IsTimeout(err) {
		t.Fatalf("paneteam took a lock Claude Code holds: %v", err)
	}
	unlock, err := Lock(context.Background(), p, Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("lock not obtained after Claude Code released it: %v", err)
	}
	unlock()
	rest, _ := r.ReadString('\n')
	if err := node.Wait(); err != nil || !strings.Contains(rest, "RELEASED") {
		t.Fatalf("Claude Code's side saw its lock disturbed: %q %v", rest, err)
	}
}

func TestClaudeCodeWaitsForPaneteamsLock(t *testing.T) {
	mods := testutil.NodeModules(t)
	p := target(t)
	unlock, err := Lock(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	node := exec.Command("node", "-e", nodeTake, p)
	node.Env = append(os.Environ(), "NODE_PATH="+mods)
	done := make(chan string, 1)
	go func() { b, _ := node.Output(); done <- string(b) }()
	time.Sleep(150 * time.Millisecond) // within Claude Code's ~0.65 s of retries
	select {
	case got := <-done:
		t.Fatalf("Claude Code got the lock while paneteam held it: %q", got)
	default:
	}
	unlock()
	if got := <-done; !strings.Contains(got, "LOCKED") {
		t.Fatalf("Claude Code did not get the lock after paneteam released it: %q", got)
	}
}

// proper-lockfile locks a file's real path: a file reached through a
// symlinked folder is the same lock directory as the file reached
// directly. A symlinked file is refused, not locked beside its target
// (links_test.go).
func TestLinkedFolderIsLockedAtItsRealPath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(real, "x.json")
	if err := os.WriteFile(p, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(real, linked); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(linked, "x.json"), filepath.Join(real, "..", "real", "x.json")} {
		unlock, err := Lock(context.Background(), target, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(p + ".lock"); err != nil || !st.IsDir() {
			t.Errorf("locking %s made no lock directory beside %s", target, p)
		}
		if err := unlock(); err != nil {
			t.Fatal(err)
		}
	}
}
