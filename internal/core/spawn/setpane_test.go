package spawn_test

import (
	"testing"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
)

// A member started again in a new pane keeps what paneteam knew of it
// (its key, its CLI, how it is stopped) and takes the new pane's place.
func TestSetPaneKeepsTheMembersOwnFacts(t *testing.T) {
	for _, c := range []struct {
		name string
		was  *team.MemberMeta
		meta *team.MemberMeta
	}{
		{"new pane with meta", &team.MemberMeta{Keyed: true, CLI: "codex", Shutdown: team.ShutdownEnd, PID: 7}, &team.MemberMeta{PID: 42}},
		{"new pane without meta", &team.MemberMeta{Keyed: true, CLI: "codex", Shutdown: team.ShutdownEnd}, nil},
		{"row without meta", nil, &team.MemberMeta{PID: 42}},
	} {
		t.Run(c.name, func(t *testing.T) {
			row := &team.Member{Name: "bob", TmuxPaneID: "%1", BackendType: team.BackendTmux, Paneteam: c.was}
			spawn.SetPane(row, backend.Pane{ID: "%9", Backend: team.BackendInProcess, Meta: c.meta})
			if row.TmuxPaneID != "%9" || row.BackendType != team.BackendInProcess || row.Paneteam == nil {
				t.Fatalf("row = %+v, want pane %%9 in-process with paneteam's record", row)
			}
			want := team.MemberMeta{}
			if c.was != nil {
				want.Keyed, want.CLI, want.Shutdown = c.was.Keyed, c.was.CLI, c.was.Shutdown
			}
			if c.meta != nil {
				want.PID = c.meta.PID
			}
			if got := *row.Paneteam; got.Keyed != want.Keyed || got.CLI != want.CLI || got.Shutdown != want.Shutdown || got.PID != want.PID {
				t.Errorf("paneteam record = %+v, want %+v", got, want)
			}
		})
	}
}
