package spawn_test

import (
	"context"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/spawn"
)

// TestRecordsAreWrittenWhileTheStartIsWatched: on tmux, the member's pane
// and the launch record are written while the startup check waits, so a
// spawn ends with its check, not a config write and two fsyncs later.
func TestRecordsAreWrittenWhileTheStartIsWatched(t *testing.T) {
	w := newWorld(t)
	r := w.request("alice", t.TempDir(), spawn.Command{Argv: []string{"sleep", "600"}})
	r.StartupCheck = 3 * time.Second
	done := make(chan error, 1)
	go func() {
		_, err := spawn.Run(context.Background(), r)
		done <- err
	}()
	deadline := time.Now().Add(r.StartupCheck - 500*time.Millisecond)
	for {
		if m := w.config().Member("alice"); m != nil && m.TmuxPaneID != "" && w.record("alice") != nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the spawn ended (%v) before its pane and launch were recorded", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("alice's pane and launch record were not written during her startup check")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rec, m := w.record("alice"), w.config().Member("alice"); rec.Pane != m.TmuxPaneID || m.Paneteam == nil || rec.PID != m.Paneteam.PID || rec.PID == 0 {
		t.Errorf("record %+v and member %+v disagree on the pane", rec, m)
	}
}

// TestFailedStartKeepsAnEarlierRecordOfTheName: a start that fails after
// its launch record was written puts back the record an earlier
// teammate of that name left (resume reads it), as one that never wrote
// it would have.
func TestFailedStartKeepsAnEarlierRecordOfTheName(t *testing.T) {
	w := newWorld(t)
	store := launches.Open(w.vars["PANETEAM_STATE_DIR"])
	old := launches.Record{Root: w.team.Root, Team: w.team.Name, Agent: "bob", Via: launches.ViaSpawnPane,
		Program: "sleep", Args: []string{"1"}, Cwd: t.TempDir(), Backend: "tmux", Pane: "%99"}
	if err := store.Write(old); err != nil {
		t.Fatal(err)
	}
	bad := w.request("bob", t.TempDir(), spawn.Command{Argv: []string{"sh", "-c", "sleep 0.1; exit 3"}})
	if _, err := spawn.Run(context.Background(), bad); err == nil {
		t.Fatal("a command that exits under its check was started")
	}
	rec := w.record("bob")
	if rec == nil || rec.Pane != "%99" || rec.Program != "sleep" {
		t.Errorf("after the failed start bob's record is %+v, want the earlier one (pane %%99)", rec)
	}
}
