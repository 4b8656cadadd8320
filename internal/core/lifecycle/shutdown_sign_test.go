package lifecycle

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// TestShutdownRefusesWhatItCannotSign: asked by a process without the
// signing key of a keyed teammate, Shutdown says why at once, whichever
// front end calls it (the dashboard's Stop as well as the command line),
// instead of writing a request the teammate would refuse and waiting out
// the timeout; nothing reaches the teammate's inbox. With Force it asks
// anyway, since the pane is closed after the timeout regardless.
func TestShutdownRefusesWhatItCannotSign(t *testing.T) {
	tm := newTeam(t)
	teamtest.Add(t, tm, team.Member{Name: "alice", Cwd: tm.Root, Paneteam: &team.MemberMeta{Keyed: true}})
	state := t.TempDir() // holds no key for alice
	o := opts()
	o.Caller = post.Caller{Getenv: func(k string) string {
		if k == "PANETEAM_STATE_DIR" {
			return state
		}
		return ""
	}}
	start := time.Now()
	res, err := o.Shutdown(context.Background(), tm, ShutdownOptions{Names: []string{"alice"}, Timeout: time.Minute})
	var unsigned *UnsignedError
	if !errors.As(err, &unsigned) || !strings.Contains(err.Error(), "alice believes team-lead only when signed") {
		t.Fatalf("shutdown of a keyed teammate without its key: %v (result %+v), want an *UnsignedError", err, res)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the refusal took %v: it waited instead of saying why at once", took)
	}
	if _, err := os.Stat(tm.InboxPath("alice")); err == nil {
		t.Error("refused, yet alice was sent a shutdown request")
	}
	if names := teamtest.Load(t, tm).MemberNames(); strings.Join(names, ",") != "team-lead,alice" {
		t.Errorf("members after the refusal: %v", names)
	}

	res, err = o.Shutdown(context.Background(), tm, ShutdownOptions{Names: []string{"alice"}, Timeout: 200 * time.Millisecond, Force: true})
	if err != nil || len(res.Members) != 1 || !res.Members[0].Forced {
		t.Fatalf("forced shutdown: %+v, %v; want alice asked, then closed", res, err)
	}
}
