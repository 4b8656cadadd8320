package lifecycle

import (
	"testing"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
)

// The orphan scan knows every private server's name paneteam gives,
// the per-team one of today included, and nothing else.
func TestPrivateServerNames(t *testing.T) {
	perTeam := backend.PrivateServerName(4242, team.Team{Root: "/r", Name: "Build Team"})
	for _, c := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{perTeam, 4242, true},
		{"paneteam-17", 17, true},
		{"claude-swarm-99", 99, true},
		{"claude-swarm-99-x-0123abcd", 0, false},
		{"paneteam-17-evil", 0, false},
		{"paneteam-", 0, false},
		{"default", 0, false},
	} {
		pid, ok := privatePID(c.name)
		if pid != c.pid || ok != c.ok {
			t.Errorf("privatePID(%q) = %d, %v; want %d, %v", c.name, pid, ok, c.pid, c.ok)
		}
	}
}
