package agentrun_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// A profile with a turn-end hook is followed through its turn file, and
// the member is marked as one whose idle its hook tells.
func TestRuntimeFollowsTheHooksTurnFile(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("coder")...)
	getenv := func(k string) string {
		if k == "HOME" {
			return t.TempDir()
		}
		return ""
	}
	p, err := profile.Find("codex", getenv)
	if err != nil {
		t.Fatal(err)
	}
	if !p.IdleHook {
		t.Fatalf("the codex profile has no idle hook; pick one that has")
	}
	tc := teammate.Config{Team: tm, Name: "coder"}
	rt, err := agentrun.NewRuntime(context.Background(), agentrun.Request{Profile: p, Team: tm, Agent: "coder",
		Cwd: t.TempDir(), Paneteam: "/usr/bin/paneteam", Getenv: getenv}, tc, "/opt/codex")
	if err != nil {
		t.Fatal(err)
	}
	if rt.Argv[0] != "/opt/codex" || rt.Turns == nil || rt.Wrap == nil {
		t.Fatalf("runtime %+v: want the program first, its turns followed, a wrapper", rt)
	}
	turns := agentrun.TurnFile(tm, "coder")
	if !strings.Contains(strings.Join(rt.Env, "\n"), "="+turns) {
		t.Errorf("env %q names no turn file %s", rt.Env, turns)
	}
	if m := teamtest.Member(t, tm, "coder"); m.Paneteam == nil || m.Paneteam.IdleBy != team.IdleByHook {
		t.Errorf("coder's paneteam fields %+v, want idle known by its hook", m.Paneteam)
	}
	if n := rt.Turns.Ended(); n != 0 {
		t.Errorf("turns ended before any: %d", n)
	}
	if err := os.WriteFile(turns, []byte("1\n2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := rt.Turns.Ended(); n != 2 {
		t.Errorf("turns ended after two marks: %d", n)
	}
}

// The CLI's MCP server is given the key the teammate loop believes, and
// a request naming another key is refused rather than run half-trusted.
func TestRuntimeHandsTheLoopsKeyToTheMCPServer(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("coder")...)
	getenv := func(k string) string {
		if k == "HOME" {
			return t.TempDir()
		}
		return ""
	}
	p, err := profile.Find("codex", getenv)
	if err != nil {
		t.Fatal(err)
	}
	const key = "1767225590000.MCowBQYDK2VwAyEAA6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"
	req := agentrun.Request{Profile: p, Team: tm, Agent: "coder", Cwd: t.TempDir(), Paneteam: "/usr/bin/paneteam", Getenv: getenv}
	rt, err := agentrun.NewRuntime(context.Background(), req, teammate.Config{Team: tm, Name: "coder", LeadKey: key}, "/opt/codex")
	if err != nil {
		t.Fatal(err)
	}
	if argv := strings.Join(rt.Argv, " "); !strings.Contains(argv, `PANETEAM_LEAD_VERIFY_KEY="`+key+`"`) {
		t.Errorf("argv %s: the MCP server is not given the loop's key", argv)
	}
	req.LeadVerifyKey = "1.other"
	if _, err := agentrun.NewRuntime(context.Background(), req, teammate.Config{Team: tm, Name: "coder", LeadKey: key}, "/opt/codex"); err == nil {
		t.Error("different keys for the MCP server and the loop were accepted")
	}
}
