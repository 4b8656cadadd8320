package tmuxconf

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// monitors counts the background monitors of this test's root.
func (h *harness) monitors() int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmd, _ := os.ReadFile(p)
		if !strings.Contains(string(cmd), "monitor\x00--team\x00demo\x00--notify") {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "environ"))
		if strings.Contains(string(env), "PANETEAM_ROOT="+h.root+"\x00") {
			n++
		}
	}
	return n
}

// TestTPMPluginNotices: @paneteam-notify starts one background monitor
// for the team (one still when the plugin runs again), and a teammate
// needing the person shows in tmux's message line, and so does its death.
// Without the option none runs.
func TestTPMPluginNotices(t *testing.T) {
	requireTPM(t)
	h := startWith(t, func(h *harness) string {
		return tpmHome(t, h.work, "set -g @paneteam-team demo\nset -g @paneteam-notify 'tmux'\n")
	})
	h.waitFor("the plugin's monitor", func() bool { return h.monitors() == 1 })
	h.inner("run-shell", filepath.Join(h.work, ".tmux", "plugins", "paneteam", "paneteam.tmux"))
	time.Sleep(500 * time.Millisecond)
	if n := h.monitors(); n != 1 {
		t.Errorf("%d monitors after the plugin ran again, want 1", n)
	}

	h.spawnAlice()
	time.Sleep(1500 * time.Millisecond) // the monitor sees alice join: not news
	lead := mailbox.New(filepath.Join(h.root, "teams", "demo", "inboxes", team.LeadName+".json"), lockfile.Options{})
	frame, _ := json.Marshal(map[string]any{"type": "permission_request", "request_id": "perm-1-abc", "agent_id": "alice",
		"tool_name": "Bash", "tool_use_id": "toolu_1", "description": "run it",
		"input": map[string]any{"command": "make test"}, "permission_suggestions": []any{}})
	if err := lead.Append(context.Background(), mailbox.Message{From: "alice", Text: string(frame), Timestamp: mailbox.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	h.waitScreen("alice needing you in the message line", func(s string) bool {
		return strings.Contains(s, "paneteam demo: alice needs you")
	})
	// Its pane gone without a shutdown: it died.
	h.inner("kill-pane", "-t", h.waitMember("alice", true).TmuxPaneID)
	h.waitScreen("alice's death in the message line", func(s string) bool {
		return strings.Contains(s, "paneteam demo: alice died: its pane is gone")
	})
}

func TestTPMPluginNoNoticesUnlessAsked(t *testing.T) {
	requireTPM(t)
	h := startWith(t, func(h *harness) string {
		return tpmHome(t, h.work, "set -g @paneteam-team demo\n")
	})
	time.Sleep(time.Second)
	if n := h.monitors(); n != 0 {
		t.Errorf("%d monitors without @paneteam-notify", n)
	}
}
