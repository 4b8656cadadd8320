package teamwatch

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/panedialog"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// TestAnAgentCLIAskingInItsPaneNeedsYou: the mark its hook leaves makes
// an agent CLI member need you, with no request in the lead's inbox; the
// same file beside a member paneteam does not run is not read.
func TestAnAgentCLIAskingInItsPaneNeedsYou(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("gem", "bob")...)
	// gem: an agent CLI paneteam runs; bob: Claude Code's own teammate.
	ctx := context.Background()
	if _, err := tm.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		c.Member("gem").Paneteam = &team.MemberMeta{IdleBy: team.IdleByHook}
		c.Member("bob").BackendType = "tmux"
		c.Member("bob").TmuxPaneID = "%9"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"gem", "bob"} {
		if err := os.MkdirAll(panedialog.RunDir(tm, who), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	take := func() *Snapshot {
		s, err := Take(ctx, tm, Options{MembersOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if gem := take().Member("gem"); gem.NeedsYou || gem.State == StateNeedsYou || gem.Asks != "" {
		t.Fatalf("gem needs you before it asks: %+v", gem)
	}
	for _, who := range []string{"gem", "bob"} {
		if err := panedialog.Set(tm, who, "Allow execution of: 'make'?", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	s := take()
	gem, bob := s.Member("gem"), s.Member("bob")
	if !gem.NeedsYou || gem.State != StateNeedsYou || gem.Asks != panedialog.Reason || gem.AsksAbout != "Allow execution of: 'make'?" || gem.Waiting != 0 {
		t.Errorf("gem asks in its pane: %+v", gem)
	}
	if bob.NeedsYou || bob.Asks != "" {
		t.Errorf("bob is Claude Code's, yet his run folder's mark was read: %+v", bob)
	}
	if err := panedialog.Clear(tm, "gem"); err != nil {
		t.Fatal(err)
	}
	if gem := take().Member("gem"); gem.NeedsYou || gem.Asks != "" {
		t.Errorf("gem still needs you once the mark is cleared: %+v", gem)
	}
}
