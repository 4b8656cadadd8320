package dashboard

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
)

// An agent CLI asking in its own pane reads as needing you in its row,
// with where to look, and its detail says what it asks, as text.
func TestAMemberAskingInItsPaneNeedsYou(t *testing.T) {
	s := team3()
	s.Members = append(s.Members, teamwatch.Member{Name: "gem", State: teamwatch.StateNeedsYou, Backend: "tmux", Pane: "alive",
		NeedsYou: true, Asks: "asks for approval in its pane", AsksAbout: "run \x1b[2Jmake?"})
	m := start(t, &fake{snap: s}, Options{})
	var row string
	for _, l := range strings.Split(ansi.Strip(m.screen()), "\n") {
		if strings.Contains(l, "gem") {
			row = l
		}
	}
	if !strings.Contains(row, "! NEEDS YOU") || !strings.Contains(row, "asks in pane") {
		t.Fatalf("gem's row: %q\n%s", row, m.screen())
	}
	press(m, "down", "down", "down", "enter")
	v := ansi.Strip(m.screen())
	if !strings.Contains(v, "asks for approval in its pane") || !strings.Contains(v, `run \x1b[2Jmake?`) {
		t.Fatalf("gem's detail:\n%s", v)
	}
}
