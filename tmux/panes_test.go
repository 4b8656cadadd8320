package tmux

import (
	"strings"
	"testing"
)

func TestParsePaneDeadStatus(t *testing.T) {
	line := func(dead, status string) string {
		return strings.Join([]string{"%3", "@1", "s", "1", "0", "0", "80", "24", "0", dead, status, "42", "a@t", "a", "0", "0"}, fieldSep)
	}
	for _, c := range []struct {
		dead, status string
		ready        bool
		want         int
	}{
		{"0", "", false, 0}, // alive
		{"1", "3", true, 3}, // dead, reaped
		{"1", "0", true, 0}, // dead, exited 0
		{"1", "", false, 0}, // dead, but tmux has no status: unknown, not 0
	} {
		ps, err := parsePanes(line(c.dead, c.status))
		if err != nil {
			t.Fatal(err)
		}
		p := ps[0]
		if p.Dead != (c.dead == "1") || p.StatusReady != c.ready || p.DeadStatus != c.want {
			t.Errorf("dead=%s status=%q: got %+v", c.dead, c.status, p)
		}
	}
}

// TestParseLinesDecodes: what encodeField makes tmux print comes back as
// the value it encoded, and a line that is not Format's shape is an error
// (as tmux's "_" for a tab was under cron).
func TestParseLinesDecodes(t *testing.T) {
	recs, err := ParseLines("%3|a~pb~tp|x~ny~t\n\n%4|~t|\n", 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"%3", "a|b~p", "x\ny~"}, {"%4", "~", ""}}
	if len(recs) != 2 || strings.Join(recs[0], ",") != strings.Join(want[0], ",") || strings.Join(recs[1], ",") != strings.Join(want[1], ",") {
		t.Fatalf("got %q, want %q", recs, want)
	}
	if _, err := ParseLines("%3_s_1", 3); err == nil || !strings.Contains(err.Error(), "1 fields, want 3") {
		t.Fatalf("a line of another shape: %v, want a field-count error", err)
	}
}
