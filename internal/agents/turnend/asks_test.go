package turnend

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/panedialog"
	"github.com/paneteam/paneteam/team"
)

func shipped(t *testing.T, name string) *profile.Profile {
	t.Helper()
	p, err := profile.Find(name, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAskedTakesOnlyTheDialogsReport reads the reports as the shipped
// profiles' hooks send them.
func TestAskedTakesOnlyTheDialogsReport(t *testing.T) {
	gemini, opencode := shipped(t, "gemini"), shipped(t, "opencode")
	cases := []struct {
		p      *profile.Profile
		report string
		asked  bool
		about  string
	}{
		{gemini, `{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool Shell requires confirmation","details":{"type":"exec"}}`, true, "Tool Shell requires confirmation"},
		{gemini, `{"hook_event_name":"Notification","notification_type":"Other"}`, false, ""},
		{gemini, `{"hook_event_name":"AfterTool","tool_name":"run_shell_command"}`, false, ""},
		{gemini, `{"hook_event_name":"AfterAgent","prompt_response":"done"}`, false, ""},
		{opencode, `{"type":"permission.asked","sessionID":"ses_1","about":"bash make"}`, true, "bash make"},
		{opencode, `{"type":"permission.replied","sessionID":"ses_1"}`, false, ""},
		{opencode, `{"type":"session.idle","sessionID":"ses_1"}`, false, ""},
	}
	for _, c := range cases {
		obj, err := Parse(c.p.HookInput, nil, strings.NewReader(c.report))
		if err != nil {
			t.Fatal(err)
		}
		about, asked := Asked(c.p.Asks, obj)
		if asked != c.asked || about != c.about {
			t.Errorf("%s %s: asked %v %q, want %v %q", c.p.Name, c.report, asked, about, c.asked, c.about)
		}
	}
	codex := shipped(t, "codex")
	obj, err := Parse(codex.HookInput, []string{`{"type":"approval-requested"}`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, asked := Asked(codex.Asks, obj); asked {
		t.Error("Codex's notify has no report of a dialog, yet one was taken for it")
	}
}

// TestFollowAsksSetsAndClears: the dialog's report marks the member, any
// later report clears the mark.
func TestFollowAsksSetsAndClears(t *testing.T) {
	root := t.TempDir()
	tm, _, err := team.Create(root, "review", team.CreateOptions{Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(panedialog.RunDir(tm, "gem"), 0o700); err != nil {
		t.Fatal(err)
	}
	g := shipped(t, "gemini")
	follow := func(report string) {
		t.Helper()
		obj, err := Parse(g.HookInput, nil, strings.NewReader(report))
		if err != nil {
			t.Fatal(err)
		}
		if err := FollowAsks(tm, "gem", g.Asks, obj, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	follow(`{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"run make?"}`)
	if m, ok := panedialog.Read(tm, "gem"); !ok || m.About != "run make?" {
		t.Fatalf("after the dialog's report: %+v %v", m, ok)
	}
	follow(`{"hook_event_name":"AfterTool","tool_name":"run_shell_command"}`)
	if _, ok := panedialog.Read(tm, "gem"); ok {
		t.Error("the mark outlived the tool's run")
	}
}
