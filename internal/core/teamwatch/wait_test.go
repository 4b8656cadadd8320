package teamwatch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// A wait for idle ends once the last teammate says it is idle, and one
// that leaves fails it at once, by name.
func TestWaitEndsWhenAllAreThereAndFailsOnOneThatLeaves(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob")...)
	idle := func(name string) {
		appendMsg(t, tm, team.LeadName, mailbox.Message{From: name, Text: frameText(t, map[string]any{"type": "idle_notification", "from": name})})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	idle("alice")
	w := NewWatcher(tm, WatchOptions{Poll: 20 * time.Millisecond})
	defer w.Close()
	done := make(chan struct{})
	var res *WaitResult
	var err error
	go func() { res, err = (Goal{Until: StateIdle}).Wait(ctx, w); close(done) }()
	select {
	case <-done:
		t.Fatalf("the wait ended with bob still busy: %+v %v", res, err)
	case <-time.After(300 * time.Millisecond):
	}
	idle("bob")
	<-done
	if err != nil || !res.OK || len(res.Members) != 2 || res.Missing() != "" {
		t.Fatalf("wait for idle: %+v %v, want both idle", res, err)
	}

	w2 := NewWatcher(tm, WatchOptions{Poll: 20 * time.Millisecond})
	defer w2.Close()
	removed := make(chan struct{})
	go func() {
		defer close(removed)
		time.Sleep(100 * time.Millisecond)
		tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error { c.RemoveMember("bob"); return nil })
	}()
	defer func() { <-removed }() // its lock is let go before the folder is removed
	res, err = (Goal{Until: StateNeedsYou, Names: []string{"alice", "bob"}}).Wait(ctx, w2)
	if err == nil || !strings.Contains(err.Error(), "bob left the team") || res.OK {
		t.Fatalf("bob leaving a wait for needs-you: %+v %v, want it failed naming bob", res, err)
	}
	w3 := NewWatcher(tm, WatchOptions{})
	defer w3.Close()
	if _, err := (Goal{Until: StateIdle, Names: []string{"carol"}}).Wait(ctx, w3); err == nil ||
		!strings.Contains(err.Error(), `"carol" is not a member of team crew`) {
		t.Errorf("a wait for a stranger: %v", err)
	}
}
