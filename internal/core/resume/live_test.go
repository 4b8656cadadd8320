package resume

import (
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/team"
)

// TestRecordedRowAsksThePanePaneteamMade: a member's pane is looked for
// where its launch record says (its pane, its tmux server), whatever the
// row says; a record an older release wrote (no socket) keeps the row's
// server. The row itself is not changed.
func TestRecordedRowAsksThePanePaneteamMade(t *testing.T) {
	row := team.Member{Name: "echo", AgentID: "echo@crew", TmuxPaneID: "%999", BackendType: "tmux",
		Paneteam: &team.MemberMeta{TmuxSocket: "/elsewhere", Keyed: true}}
	got := recordedRow(row, &launches.Record{Pane: "%1", Backend: "tmux", TmuxSocket: "/tmp/tmux-0/paneteam-1"})
	if got.TmuxPaneID != "%1" || got.Paneteam.TmuxSocket != "/tmp/tmux-0/paneteam-1" || !got.Paneteam.Keyed {
		t.Errorf("judged row %+v (meta %+v); want pane %%1 on the recorded server", got, got.Paneteam)
	}
	if row.TmuxPaneID != "%999" || row.Paneteam.TmuxSocket != "/elsewhere" {
		t.Errorf("the row was changed: %+v", row)
	}
	old := recordedRow(row, &launches.Record{Pane: "%1", Backend: "tmux"})
	if old.TmuxPaneID != "%1" || old.Paneteam.TmuxSocket != "/elsewhere" {
		t.Errorf("an older record: %+v (meta %+v); want its pane on the row's server", old, old.Paneteam)
	}
	if same(got, row) || !same(row, recordedRow(row, nil)) {
		t.Error("same() does not tell the recorded pane from the row's")
	}
}

// TestDuplicatesInEverySpelling: rows sharing a name, exactly or in
// another spelling (one inbox file), are duplicates; others are not.
func TestDuplicatesInEverySpelling(t *testing.T) {
	cfg := &team.Config{Members: []team.Member{{Name: "team-lead"}, {Name: "echo"}, {Name: "echo"}, {Name: "a.b"}, {Name: "a-b"}, {Name: "plain"}}}
	d := duplicates(cfg)
	if d["echo"] != 1 || d["a.b"] != 1 || d["a-b"] != 1 || d["plain"] != 0 || d["team-lead"] != 0 || len(d) != 3 {
		t.Errorf("duplicates %v; want echo, a.b and a-b once each", d)
	}
}
