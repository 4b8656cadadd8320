package teamwatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// A member with a worktree of its own shows its branch: one Claude's lead
// started under 'paneteam claude --worktree' from paneteam's record; one
// whose worktree was removed, or that never had one, shows none.
func TestMembersShowTheirWorktreesBranch(t *testing.T) {
	state := t.TempDir()
	t.Setenv("PANETEAM_STATE_DIR", state)
	tm := teamtest.New(t, "crew", team.CreateOptions{},
		team.Member{Name: "alice", TmuxPaneID: "%3", BackendType: team.BackendTmux},
		team.Member{Name: "bob", TmuxPaneID: "%4", BackendType: team.BackendTmux},
		team.Member{Name: "carol", TmuxPaneID: "%5", BackendType: team.BackendTmux},
	)
	recs := worktree.OpenRecords(state)
	for _, n := range []string{"alice", "bob"} {
		p := filepath.Join(t.TempDir(), n)
		if n == "alice" {
			os.Mkdir(p, 0o755)
		}
		if err := recs.Write(worktree.Record{Path: p, Branch: worktree.Branch("crew", n), Root: tm.Root, Team: "crew", Member: n}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Take(context.Background(), tm, Options{MembersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"alice": "paneteam/crew/alice", "bob": "", "carol": "", team.LeadName: ""} {
		if got := s.Member(name).Branch; got != want {
			t.Errorf("%s's branch %q, want %q", name, got, want)
		}
	}
}
