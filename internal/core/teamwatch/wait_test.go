package teamwatch

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// A teammate that leaves the team fails a wait for idle at once, naming
// it, and the result says it left; for gone, leaving is what was
// awaited.
func TestWaitTeammateLeaves(t *testing.T) {
	for _, until := range []State{StateIdle, StateGone} {
		t.Run(string(until), func(t *testing.T) {
			tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob")...)
			w := NewWatcher(tm, WatchOptions{Poll: 20 * time.Millisecond})
			defer w.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			type end struct {
				res *WaitResult
				err error
			}
			done := make(chan end, 1)
			go func() {
				res, err := Wait(ctx, w, Goal{Until: until, Names: []string{"alice"}})
				done <- end{res, err}
			}()
			time.Sleep(200 * time.Millisecond)
			if _, err := tm.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
				c.Members = slices.DeleteFunc(c.Members, func(m team.Member) bool { return m.Name == "alice" })
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			e := <-done
			if e.res == nil || len(e.res.Members) != 1 || !e.res.Members[0].Left || e.res.Members[0].State != string(StateGone) {
				t.Fatalf("result %+v (%v), want alice gone and left", e.res, e.err)
			}
			switch until {
			case StateIdle:
				if e.err == nil || !strings.Contains(e.err.Error(), "alice left the team") || e.res.OK {
					t.Errorf("wait for idle ended with %v, ok %v; want alice named as having left", e.err, e.res.OK)
				}
			case StateGone:
				if e.err != nil || !e.res.OK {
					t.Errorf("wait for gone ended with %v, ok %v; want success", e.err, e.res.OK)
				}
			}
		})
	}
}

// Waiting for someone who is not a member fails before any wait, naming
// the members; for gone it is already there.
func TestWaitForAStranger(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice")...)
	w := NewWatcher(tm, WatchOptions{Poll: 20 * time.Millisecond})
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Wait(ctx, w, Goal{Until: StateIdle, Names: []string{"zed"}}); err == nil || !strings.Contains(err.Error(), `"zed" is not a member`) || !strings.Contains(err.Error(), "alice") {
		t.Errorf("wait for a stranger: %v, want it refused with the members", err)
	}
	w2 := NewWatcher(tm, WatchOptions{Poll: 20 * time.Millisecond}) // w has given its snapshot
	defer w2.Close()
	res, err := Wait(ctx, w2, Goal{Until: StateGone, Names: []string{"zed"}})
	if err != nil || !res.OK || res.Missing() != "" {
		t.Errorf("wait for a stranger to be gone: %+v %v, want done at once", res, err)
	}
}
