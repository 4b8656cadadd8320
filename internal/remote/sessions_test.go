package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// sshd's MaxSessions at 2N fits N teammates at rest (a pane and a mount
// each). N+1 start at once on the host, as N+1 spawn-pane --host run at
// the same time: exactly N start and their panes run, as they would one
// after the other; the one that does not fit fails with ErrSessions,
// leaving nothing of itself on either machine; and nothing is left once
// the N stop.
//
// The starts are made to meet: each waits, with its mount's session open
// and before the mount's wait, until all N+1 are there (or 1.5 s pass).
// Were starts not taking turns, N+1 mounts would then be open, and only
// N-1 of the waits would find a session.
func TestStartsAtOnceFitWhatFitsOneAfterTheOther(t *testing.T) {
	const n = 2
	l := newLab(t, sshhost.Options{MaxSessions: 2 * n})
	var arrived atomic.Int32
	all := make(chan struct{})
	defer remote.SetMountStarted(func() {
		if arrived.Add(1) == n+1 {
			close(all)
		}
		select {
		case <-all:
			time.Sleep(500 * time.Millisecond) // the last mount's session opens
		case <-time.After(1500 * time.Millisecond):
		}
	})()

	res := make([]*startResult, n+1)
	var wg sync.WaitGroup
	for i := range res {
		r := &startResult{member: fmt.Sprintf("m%d", i)}
		res[i] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			var release func()
			r.pane, r.undo, r.err = remote.Start(context.Background(), remote.Spawn{
				Getenv: l.getenv, Host: sshhost.Alias, Root: l.root, Team: l.team, Member: r.member,
				Exe: l.exe, Argv: []string{"sh", "-c", "echo up; exec sleep 60"}, Say: &r.say,
				Hold: func(f func()) { release = f },
			})
			if r.err != nil {
				return
			}
			// The start lock is held until the pane has its session.
			defer release()
			r.startPane()
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(r.out.String(), "up") && time.Now().Before(deadline) {
				select {
				case <-r.done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
	}
	wg.Wait()

	var started, refused []*startResult
	for _, r := range res {
		if r.err == nil {
			started = append(started, r)
			l.recordPIDs(t, r.member)
		} else {
			refused = append(refused, r)
		}
	}
	defer func() {
		for _, r := range started {
			r.stopPane()
			r.undo()
		}
	}()
	for _, r := range refused {
		t.Logf("%s: %v", r.member, r.err)
	}
	if len(started) != n || len(refused) != 1 {
		t.Fatalf("%d of %d teammates started at once where %d fit one after the other (MaxSessions %d)", len(started), n+1, n, 2*n)
	}
	if err := refused[0].err; !errors.Is(err, remote.ErrSessions) || !strings.Contains(err.Error(), "MaxSessions") {
		t.Errorf("the teammate that did not fit failed with %v, not %v naming MaxSessions", err, remote.ErrSessions)
	}
	for _, r := range started {
		select {
		case err := <-r.done:
			t.Errorf("%s's pane ended (%v):\n%s", r.member, err, r.out.String())
		default:
		}
		if !strings.Contains(r.out.String(), "up") {
			t.Errorf("%s's pane did not start its teammate:\n%s", r.member, r.out.String())
		}
	}
	waited := 0
	for _, r := range res {
		if strings.Contains(r.say.String(), "waiting for another teammate's start") {
			waited++
		}
	}
	if waited == 0 || waited == len(res) {
		t.Errorf("%d of %d starts said they waited for another one: the first need not", waited, len(res))
	}
	gone := refused[0].member
	if got := l.host.MustRun(t, "grep -c fuse.sshfs /proc/mounts; ls "+sshhost.Home+"/.claude/paneteam/mnt/"+l.team+"; true"); strings.Fields(got)[0] != fmt.Sprint(n) || strings.Contains(got, gone) {
		t.Errorf("%s left a mount or folder on the host: %s", gone, got)
	}
	if recs, _ := filepath.Glob(filepath.Join(remote.StateDir(l.getenv, l.root, l.team), gone+".*")); len(recs) > 0 {
		t.Errorf("%s left records on the lead: %v", gone, recs)
	}

	for _, r := range started {
		r.stopPane()
		r.undo()
	}
	started = nil
	testutil.Eventually(t, 15*time.Second, "nothing left on the host", func() bool { return l.leftOnHost(t) == "" })
	testutil.Eventually(t, 10*time.Second, "nothing left on the lead", func() bool { return l.leftOnLead(t) == "" })
}

// startResult is one of the starts at once and its pane.
// A start that keeps the host's start lock for its pane lets it go only
// once the pane's session is open on the host (the pane leaves its mark
// in the team's folder), not when the pane's ssh merely started: a start
// waiting for the lock would otherwise take the session the pane is
// opening, at sshd's MaxSessions. The mark goes once seen.
func TestStartLockIsKeptUntilThePaneIsUp(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	defer remote.SetUpWait(time.Minute)() // a mark never seen hangs the test
	r := &startResult{member: "m0"}
	var release func()
	r.pane, r.undo, r.err = remote.Start(context.Background(), remote.Spawn{
		Getenv: l.getenv, Host: sshhost.Alias, Root: l.root, Team: l.team, Member: r.member,
		Exe: l.exe, Argv: []string{"sh", "-c", "echo up; exec sleep 60"}, Say: &r.say,
		Hold: func(f func()) { release = f },
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	l.recordPIDs(t, r.member)
	defer func() { r.stopPane(); r.undo() }()
	released := make(chan struct{})
	go func() { release(); close(released) }()
	select {
	case <-released:
		t.Fatal("the start lock was let go before the pane's session was open")
	case <-time.After(time.Second):
	}
	r.startPane()
	select {
	case <-released:
	case err := <-r.done:
		t.Fatalf("the pane ended (%v):\n%s", err, r.out.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("the start lock was not let go once the pane was up:\n%s", r.out.String())
	}
	if marks, _ := filepath.Glob(filepath.Join(l.root, "teams", l.team, ".paneteam-up-*")); len(marks) > 0 {
		t.Errorf("the pane's mark stayed in the team's folder: %v", marks)
	}
	r.stopPane()
	r.undo()
	testutil.Eventually(t, 15*time.Second, "nothing left on the host", func() bool { return l.leftOnHost(t) == "" })
	testutil.Eventually(t, 10*time.Second, "nothing left on the lead", func() bool { return l.leftOnLead(t) == "" })
}

type startResult struct {
	member string
	pane   []string
	undo   func()
	err    error
	say    bytes.Buffer
	cmd    *exec.Cmd
	out    *testutil.Buffer
	done   chan error
}

// startPane starts r's pane as a terminal would, from a goroutine.
func (r *startResult) startPane() {
	r.out, r.done = &testutil.Buffer{}, make(chan error, 1)
	r.cmd = exec.Command(r.pane[0], r.pane[1:]...)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		r.cmd = nil
		r.done <- err
		return
	}
	go func() { r.done <- r.cmd.Wait() }()
}

// stopPane ends r's pane, as closing it would, once.
func (r *startResult) stopPane() {
	if r.cmd != nil {
		r.cmd.Process.Kill()
		<-r.done
		r.cmd = nil
	}
}

// recordPIDs adds member's mount processes on the lead to those
// leftOnLead looks for.
func (l *lab) recordPIDs(t *testing.T, member string) {
	t.Helper()
	var st remote.State
	b, _ := os.ReadFile(filepath.Join(remote.StateDir(l.getenv, l.root, l.team), member+".json"))
	if err := json.Unmarshal(b, &st); err != nil || st.ServerPID == 0 || st.SSHPID == 0 {
		t.Fatalf("the lead's record of %s: %v %s", member, err, b)
	}
	l.pids = append(l.pids, st.ServerPID, st.SSHPID)
}

// A start waits while another process holds the host's start lock, says
// so once the wait is long, and gives up when its context ends, naming
// the lock. A holder that dies (killed, as a crashed spawn-pane) wedges
// nothing: the next start goes ahead at once.
func TestAStartWaitsForAnotherStartButNotForADeadOne(t *testing.T) {
	flockTool := testutil.RequireTool(t, "flock")
	l := newLab(t, sshhost.Options{})
	dir := remote.StateDir(l.getenv, l.root, l.team)
	c, err := remote.NewClient(l.getenv, sshhost.Alias, dir, l.team)
	if err != nil {
		t.Fatal(err)
	}
	lock := remote.StartLockPath(c)
	os.MkdirAll(dir, 0o700)
	holder := exec.Command(flockTool, lock, "sleep", "60")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	held := make(chan struct{})
	go func() { holder.Wait(); close(held) }()
	kill := func() { syscall.Kill(-holder.Process.Pid, syscall.SIGKILL); <-held }
	t.Cleanup(kill)
	testutil.Eventually(t, 5*time.Second, "the other process to hold the start lock", func() bool {
		return exec.Command(flockTool, "-n", lock, "true").Run() != nil
	})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var say bytes.Buffer
	_, _, err = remote.Start(ctx, remote.Spawn{Getenv: l.getenv, Host: sshhost.Alias, Root: l.root, Team: l.team, Member: "alice",
		Exe: l.exe, Argv: []string{"sleep", "60"}, Say: &say})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), lock) {
		t.Errorf("a start behind a held lock ended with %v, not the context's end naming %s", err, lock)
	}
	if !strings.Contains(say.String(), "waiting for another teammate's start on "+sshhost.Alias) {
		t.Errorf("a start that waited 3 s did not say so: %q", say.String())
	}
	if c.Connected(context.Background()) {
		t.Errorf("a start that never got its turn connected to the host")
	}

	kill()
	begin := time.Now()
	_, say2 := l.spawn(t, "alice", "sleep", "60")
	if took := time.Since(begin); strings.Contains(say2.String(), "waiting") {
		t.Errorf("the start after its holder died waited for it (%s): %q", took, say2.String())
	}
}
