package teamtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/team"
)

// The team is on disk where paneteam and Claude Code look for it, with
// its members as spawn records them.
func TestNewWritesTheTeamFiles(t *testing.T) {
	tm := New(t, "crew", team.CreateOptions{Cwd: "/src"},
		append(Named("alice", "bob"), Like(team.Member{BackendType: team.BackendInProcess, TmuxPaneID: team.InProcessPaneID}, "alice")...)...)
	if home, _ := os.UserHomeDir(); strings.HasPrefix(tm.Root, filepath.Join(home, ".claude")) {
		t.Fatalf("team root %s is the real one", tm.Root)
	}
	b, err := os.ReadFile(filepath.Join(tm.Root, "teams", "crew", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		LeadAgentID string `json:"leadAgentId"`
		Members     []struct {
			AgentID, Name, Color, TmuxPaneID, BackendType string
		} `json:"members"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("config.json: %v\n%s", err, b)
	}
	var got []string
	colors := map[string]bool{}
	for _, m := range cfg.Members {
		got = append(got, m.AgentID)
		if m.Name != team.LeadName {
			colors[m.Color] = true
		}
	}
	if want := "team-lead@crew alice@crew bob@crew alice-2@crew"; strings.Join(got, " ") != want {
		t.Errorf("members %q, want %q", strings.Join(got, " "), want)
	}
	if len(colors) != 3 {
		t.Errorf("teammates share colours: %v", colors)
	}
	if m := Member(t, tm, "alice-2"); m.BackendType != team.BackendInProcess || m.TmuxPaneID != team.InProcessPaneID {
		t.Errorf("Like lost its fields: %+v", m)
	}
	if m := Member(t, tm, "alice"); m.BackendType != "" {
		t.Errorf("Named gave alice a backend: %+v", m)
	}
	if _, err := os.Stat(tm.InboxDir()); err != nil {
		t.Errorf("no inboxes folder: %v", err)
	}
}

// A second team of the same name on one root gets -2, as team-create
// gives it, and Add records members in an existing team.
func TestOnRootAndAdd(t *testing.T) {
	first := New(t, "crew", team.CreateOptions{})
	second := OnRoot(t, first.Root, "crew", team.CreateOptions{})
	if second.Name != "crew-2" {
		t.Fatalf("second team %q, want crew-2", second.Name)
	}
	cfg := Add(t, second, Named("carol")...)
	if cfg.Member("carol") == nil || Load(t, second).Member("carol") == nil {
		t.Fatalf("carol not recorded: %+v", cfg.Members)
	}
	if Load(t, first).Member("carol") != nil {
		t.Fatal("carol was added to the other team")
	}
}
