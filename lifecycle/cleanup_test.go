package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/team"
)

func TestCleanupRefusesActiveMembersAndNamesThem(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t)
	addMembers(t, tm, "alice", "bob")
	_, err := opts().Cleanup(ctx, tm, CleanupOptions{})
	var active *ActiveError
	if !errors.As(err, &active) || strings.Join(active.Names, ",") != "alice,bob" ||
		!strings.Contains(err.Error(), "paneteam shutdown --team crew --all") {
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

func TestTeardownWorksAfterTheCommandWasInterrupted(t *testing.T) {
	tm := newTeam(t)
	addMembers(t, tm, "alice") // active: Teardown closes it anyway
	res, err := opts().Teardown(tm, 5*time.Second)
	if err != nil || !res.Deleted || exists(tm.Dir()) {
		t.Fatalf("Teardown: %+v, %v", res, err)
	}
}
