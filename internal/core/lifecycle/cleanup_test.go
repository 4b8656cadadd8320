package lifecycle

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

func TestCleanupRefusesActiveMembersAndNamesThem(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t)
	addMembers(t, tm, "alice", "bob")
	_, err := opts().Cleanup(ctx, tm, CleanupOptions{})
	var active *ActiveError
	if !errors.As(err, &active) || strings.Join(active.Names, ",") != "alice,bob" ||
		!strings.Contains(err.Error(), "ask them to shut down first") {
		t.Fatalf("Cleanup = %v", err)
	}
	if !exists(tm.ConfigPath()) {
		t.Fatal("refused cleanup deleted the team")
	}
	// Idle members do not block it (isActive false, as Claude Code counts).
	if _, err := tm.Update(ctx, opts().Lock, func(c *team.Config) error {
		idle := false
		for i := range c.Members {
			c.Members[i].IsActive = &idle
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	plan, err := opts().Cleanup(ctx, tm, CleanupOptions{DryRun: true})
	if err != nil || !plan.Deleted || !exists(tm.ConfigPath()) {
		t.Fatalf("dry run: %+v, %v", plan, err)
	}
	res, err := opts().Cleanup(ctx, tm, CleanupOptions{})
	if err != nil || !res.Deleted {
		t.Fatalf("Cleanup: %+v, %v", res, err)
	}
	if exists(tm.Dir()) || exists(tm.TasksDir()) {
		t.Fatal("team or task folder left")
	}
}

// TestCleanupsTakeTurns: a cleanup waits for one in progress (the flock
// under the root), and one that waits too long says so and changes nothing.
func TestCleanupsTakeTurns(t *testing.T) {
	tm := newTeam(t)
	held := flock.New(filepath.Join(tm.Root, LockName))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	short := Options{Lock: lockfile.Options{Timeout: 100 * time.Millisecond}}
	_, err := short.Cleanup(context.Background(), tm, CleanupOptions{})
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "another cleanup") || !strings.Contains(err.Error(), LockName) {
		t.Fatalf("Cleanup while another holds the lock: %v", err)
	}
	if !exists(tm.ConfigPath()) {
		t.Fatal("a cleanup that did not get the lock deleted the team")
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		held.Unlock()
	}()
	res, err := opts().Cleanup(context.Background(), tm, CleanupOptions{})
	if err != nil || !res.Deleted {
		t.Fatalf("Cleanup once the lock is free: %+v, %v", res, err)
	}
}
