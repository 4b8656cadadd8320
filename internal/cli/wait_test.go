package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/team"
)

// blocked checks that p is still waiting a moment after it started: the
// state it waits for does not hold yet.
func blocked(t *testing.T, p *ptProc) {
	t.Helper()
	time.Sleep(400 * time.Millisecond)
	if !p.running() {
		t.Fatalf("wait ended (exit %d) before its state held\nstdout: %s\nstderr: %s", p.code, p.out, p.errb)
	}
}

func TestWaitUntilIdle(t *testing.T) {
	w := newWatchTeam(t, "alice", "bob")
	w.idle("bob", "done") // bob is idle already; alice is still working
	p := w.start("wait", "--team", "crew", "--all", "--until", "idle", "--poll", "200ms", "--json")
	blocked(t, p)
	w.idle("alice", "done too")
	if code := p.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("wait exited %d once everyone was idle: %s", code, p.errb)
	}
	var res teamwatch.WaitResult
	if err := json.Unmarshal([]byte(p.out.String()), &res); err != nil {
		t.Fatalf("--json printed %q: %v", p.out, err)
	}
	if !res.OK || len(res.Members) != 2 || res.Members[0].State != "idle" || res.Members[1].State != "idle" {
		t.Errorf("final state %+v, want alice and bob idle", res)
	}
}

func TestWaitUntilNeedsYou(t *testing.T) {
	w := newWatchTeam(t, "alice")
	p := w.start("wait", "--team", "crew", "--name", "alice", "--until", "needs-you", "--poll", "200ms")
	blocked(t, p)
	w.askPermission("alice", "perm-2-xyz")
	if code := p.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("wait exited %d once alice asked for permission: %s", code, p.errb)
	}
	if got := p.out.String(); got != "alice: needs-you\n" {
		t.Errorf("wait printed %q, want alice: needs-you", got)
	}
}

// TestWaitUntilGone: leaving the team is what --until gone waits for.
func TestWaitUntilGone(t *testing.T) {
	w := newWatchTeam(t, "alice", "bob")
	p := w.start("wait", "--team", "crew", "--all", "--until", "gone", "--poll", "200ms")
	blocked(t, p)
	w.leave("alice")
	blocked(t, p)
	w.leave("bob")
	if code := p.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("wait exited %d once both left: %s", code, p.errb)
	}
	if out := p.out.String(); !strings.Contains(out, "alice: gone") || !strings.Contains(out, "bob: gone") {
		t.Errorf("wait printed %q, want alice and bob gone", out)
	}
}

// TestWaitUntilGonePaneDies: a teammate whose pane died is gone too.
func TestWaitUntilGonePaneDies(t *testing.T) {
	s := spInside(t)
	pane := s.spawn("alice", filepath.Join(t.TempDir(), "marks")).PaneID
	w := &watchTeam{t: t, root: s.root, tm: team.Team{Root: s.root, Name: s.name}, vars: s.vars}
	p := w.start("wait", "--team", s.name, "--name", "alice", "--until", "gone", "--poll", "200ms")
	blocked(t, p)
	if _, err := s.srv.Run(context.Background(), "kill-pane", "-t", pane); err != nil {
		t.Fatal(err)
	}
	if code := p.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("wait exited %d once alice's pane died: %s", code, p.errb)
	}
}

// TestWaitTimeoutNamesWhoIsMissing: exit 1, naming only who is not there.
func TestWaitTimeoutNamesWhoIsMissing(t *testing.T) {
	w := newWatchTeam(t, "alice", "bob")
	w.idle("bob", "done")
	start := time.Now()
	p := w.start("wait", "--team", "crew", "--all", "--until", "idle", "--timeout", "700ms", "--poll", "200ms")
	if code := p.exit(t, 10*time.Second); code != 1 {
		t.Fatalf("wait exited %d on timeout, want 1: %s", code, p.errb)
	}
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Errorf("wait gave up after %s, before its 700ms timeout", d)
	}
	errs := p.errb.String()
	if !strings.Contains(errs, "timed out after 700ms waiting for idle: alice (active) not there yet") || strings.Contains(errs, "bob") {
		t.Errorf("timeout said %q, want alice (active) named and bob not", errs)
	}
}

// TestWaitTeammateLeaves: waiting for idle, a teammate that leaves fails
// the wait at once, named, long before the timeout.
func TestWaitTeammateLeaves(t *testing.T) {
	for _, until := range []string{"idle", "needs-you"} {
		w := newWatchTeam(t, "alice", "bob")
		p := w.start("wait", "--team", "crew", "--all", "--until", until, "--timeout", "60s", "--poll", "200ms")
		blocked(t, p)
		w.leave("alice")
		if code := p.exit(t, 10*time.Second); code != 1 {
			t.Fatalf("--until %s: wait exited %d when alice left, want 1: %s", until, code, p.errb)
		}
		if errs := p.errb.String(); !strings.Contains(errs, "alice left the team") || strings.Contains(errs, "bob left") {
			t.Errorf("--until %s: wait said %q, want alice named as having left", until, errs)
		}
	}
}

func TestWaitRefusesBadCalls(t *testing.T) {
	w := newWatchTeam(t, "alice")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--all"}, 2, "--until idle, needs-you or gone"},
		{[]string{"--all", "--until", "asleep"}, 2, `--until "asleep"`},
		{[]string{"--until", "idle"}, 2, "--name NAME (repeatable) or --all"},
		{[]string{"--name", "alice", "--all", "--until", "idle"}, 2, "not both"},
		{[]string{"--name", "zoe", "--until", "idle"}, 1, `"zoe" is not a member of team crew (members: team-lead, alice)`},
	} {
		p := w.start(append([]string{"wait", "--team", "crew"}, c.args...)...)
		if code := p.exit(t, 10*time.Second); code != c.code || !strings.Contains(p.errb.String(), c.says) {
			t.Errorf("wait %v: exit %d %q, want exit %d saying %q", c.args, code, p.errb, c.code, c.says)
		}
	}
}
