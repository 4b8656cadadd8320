package tmux

import (
	"strings"
	"testing"
)

func TestParsePaneDeadStatus(t *testing.T) {
	line := func(dead, status string) string {
		return strings.Join([]string{"%3", "@1", "s", "1", "0", "0", "80", "24", "0", dead, status, "42", "a@t", "a"}, fieldSep)
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
		p, err := parsePane(line(c.dead, c.status))
		if err != nil {
			t.Fatal(err)
		}
		if p.Dead != (c.dead == "1") || p.StatusReady != c.ready || p.DeadStatus != c.want {
			t.Errorf("dead=%s status=%q: got %+v", c.dead, c.status, p)
		}
	}
}
