package agentrun_test

import (
	"os"
	"testing"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// The session a hook names is kept in the run's folder and found from
// the teammate's launch record; what is not a session id is not kept; a
// fresh start forgets the session of the run before it, a continued one
// keeps it.
func TestSessionIsKeptUntilAFreshStart(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("coder")...)
	home := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	p, err := profile.Find("codex", getenv)
	if err != nil {
		t.Fatal(err)
	}
	req := agentrun.Request{Profile: p, Team: tm, Agent: "coder", Cwd: t.TempDir(), Paneteam: "/bin/paneteam", Getenv: getenv}
	if _, err := agentrun.Prepare(req); err != nil {
		t.Fatal(err)
	}
	rec := launches.Record{Root: tm.Root, Team: tm.Name, Agent: "coder", CLI: "codex"}
	if id, why := agentrun.Session(rec, getenv); id != "" || why == "" {
		t.Errorf("before any turn: %q, %q; want none, and why", id, why)
	}
	const sid = "019a1b2c-0d4e-7f60-8a9b-0c1d2e3f4a5b"
	if err := agentrun.WriteSession(tm, "coder", sid); err != nil {
		t.Fatal(err)
	}
	if err := agentrun.WriteSession(tm, "coder", "-c x=1"); err != nil {
		t.Fatal(err)
	}
	if id, why := agentrun.Session(rec, getenv); id != sid {
		t.Errorf("after the hook named %s: %q, %q", sid, id, why)
	}
	req.Session = sid
	if _, err := agentrun.Prepare(req); err != nil {
		t.Fatal(err)
	}
	if id, _ := agentrun.ReadSession(tm, "coder"); id != sid {
		t.Errorf("continued: session %q, want %s kept", id, sid)
	}
	req.Session = ""
	if _, err := agentrun.Prepare(req); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(agentrun.SessionFile(tm, "coder")); !os.IsNotExist(err) {
		t.Errorf("a fresh start kept the session of the run before it: %v", err)
	}
}
