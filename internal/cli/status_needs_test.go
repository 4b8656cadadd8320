package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// TestStatusShowsWhoNeedsYou: a teammate with a request waiting for the
// lead reads as NEEDS YOU in status, in --json, and as "!N need you" in
// the tmux status line; answered, it no longer does.
func TestStatusShowsWhoNeedsYou(t *testing.T) {
	root, vars := reqTeam(t)
	leadInbox(t, root,
		req("alice", permText("perm-1767225600000-aaaaaaa", "alice", reqInput)),
		req("alice", planText("plan_approval-1767225600001@alice@crew", "alice", "# Plan\n")))

	out, errs, code := ptRun(t, vars, "", "status", "--team", "crew")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errs)
	}
	var alice, bob string
	for _, line := range strings.Split(out, "\n") {
		switch f := strings.Fields(line); {
		case len(f) > 0 && f[0] == "alice":
			alice = line
		case len(f) > 0 && f[0] == "bob":
			bob = line
		}
	}
	if !strings.Contains(alice, "NEEDS YOU (2)") || strings.Contains(bob, "NEEDS YOU") {
		t.Errorf("status:\n%s\nwant alice NEEDS YOU (2), bob not", out)
	}

	js, _, _ := ptRun(t, vars, "", "status", "--team", "crew", "--json")
	var teams []teamStatus
	if err := json.Unmarshal([]byte(js), &teams); err != nil || len(teams) != 1 {
		t.Fatalf("status --json: %v\n%s", err, js)
	}
	for _, m := range teams[0].Members {
		if want := m.Name == "alice"; m.NeedsYou != want || (want && m.Waiting != 2) {
			t.Errorf("--json %s: needsYou %v, waiting %d", m.Name, m.NeedsYou, m.Waiting)
		}
	}

	line, _, _ := ptRun(t, vars, "", "status", "--team", "crew", "--format", "tmux")
	if !strings.Contains(line, "!2 need you") {
		t.Errorf("status line %q, want !2 need you", line)
	}

	badge, _, _ := ptRun(t, vars, "", "status", "--format", "iterm2")
	if want := "\x1b]1337;SetUserVar=paneteam_needs=" + base64.StdEncoding.EncodeToString([]byte("!2 need you")) + "\a"; badge != want {
		t.Errorf("status --format iterm2 printed %q, want %q", badge, want)
	}

	for _, id := range []string{"perm-1767225600000-aaaaaaa", "plan_approval-1767225600001@alice@crew"} {
		if _, errs, code := ptRun(t, vars, "", "deny", "--team", "crew", id); code != 0 {
			t.Fatalf("deny %s: %s", id, errs)
		}
	}
	if out, _, _ := ptRun(t, vars, "", "status", "--team", "crew"); strings.Contains(out, "NEEDS YOU") {
		t.Errorf("after both answers, status still says:\n%s", out)
	}
	if line, _, _ := ptRun(t, vars, "", "status", "--team", "crew", "--format", "tmux"); strings.Contains(line, "need you") {
		t.Errorf("after both answers, the status line says %q", line)
	}
	if badge, _, _ := ptRun(t, vars, "", "status", "--format", "iterm2"); badge != "\x1b]1337;SetUserVar=paneteam_needs=\a" {
		t.Errorf("after both answers, status --format iterm2 printed %q, want the variable emptied", badge)
	}
}

// TestStatusShowsConfigTextAsText: config.json is anyone's to write; a
// description or backend holding an escape sequence is shown as text.
func TestStatusShowsConfigTextAsText(t *testing.T) {
	root, vars := reqTeam(t)
	tm := team.Team{Root: root, Name: "crew"}
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.Description = "review \x1b]52;c;cm0gLXJmIH4=\x07 clipboard"
		c.Member("alice").BackendType = "tmux\x1b[2J"
		c.Member("bob").BackendType = `tmux\x1b[2J` // typed: another text
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	out, errs, code := ptRun(t, vars, "", "status", "--team", "crew")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errs)
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("status printed config text raw:\n%q", out)
	}
	if !strings.Contains(out, `: $'review \x1b]52;c;cm0gLXJmIH4=\x07 clipboard'`) {
		t.Errorf("description not marked as escaped:\n%s", out)
	}
	alice, bob := statusRow(out, "alice"), statusRow(out, "bob")
	if !strings.Contains(alice, ` $'tmux\x1b[2J' `) || !strings.Contains(bob, ` tmux\x1b[2J `) {
		t.Errorf("a real escape and a typed one print alike:\n%s", out)
	}
}

// statusRow is the member's row of status's table.
func statusRow(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  "+name+" ") {
			return line
		}
	}
	return ""
}
