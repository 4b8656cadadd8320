package router

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/agents/profile"
)

// recorded is a pane teammate's command line as Claude Code's lead
// writes it (2.1.330's respawn-pane, ../logs), with every flag its
// builder can add present.
var recorded = []string{
	"--agent-id", "coder@session-1", "--agent-name", "coder", "--team-name", "session-1",
	"--agent-color", "blue", "--parent-session-id", "97469566-66ea-4fe2-957f-43a349fc6648",
	"--lead-verify-key", "1795514815719.MCowBQYDK2VwAyEAJZKheI9E5bY2nuhiUR60ngoZOfMvllJQmkqvotBhllI",
	"--plan-mode-required", "--agent-type", "codex",
	"--permission-mode", "auto", "--model", "claude-opus-5-5", "--effort", "high",
	"--disallowed-tools", "Bash(rm:*)", "WebFetch",
	"--settings", "/p/settings.json", "--managed-settings", `{"a":1}`, "--plugin-dir", "/p/plug",
	"--plugin-dir-no-mcp", "/p/plug2", "--plugin-url", "https://x/p.zip", "--project-config-root", "/p",
	"--mcp-config", "/p/mcp.json", "--strict-mcp-config", "--proactivity", "high", "--setting-sources=user,project",
}

func shipped(t *testing.T, name string) *profile.Profile {
	t.Helper()
	p, err := profile.Find(name, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEveryClaudeFlagMappedOrRefused: each flag of the recorded line is
// read; deny rules a CLI cannot enforce refuse the spawn naming the rule;
// with them gone the rest maps (plan mode required wins over auto, the
// Claude model is not passed), and each setting with no meaning for the
// CLI is named in a note. An unknown flag refuses.
func TestEveryClaudeFlagMappedOrRefused(t *testing.T) {
	tm, err := ParseClaudeArgs(recorded)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Name != "coder" || tm.Team != "session-1" || tm.AgentType != "codex" || !tm.PlanModeRequired ||
		tm.PermissionMode != "auto" || tm.Model != "claude-opus-5-5" || !strings.HasPrefix(tm.LeadVerifyKey, "1795514815719.") ||
		!slices.Equal(tm.Deny, []string{"Bash(rm:*)", "WebFetch"}) || len(tm.Ignorable) != 10 {
		t.Fatalf("parsed %+v", tm)
	}
	for _, name := range []string{"codex", "gemini", "opencode"} {
		p := shipped(t, name)
		_, err := Map(tm, p)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(re.Flag, "Bash(rm:*)") {
			t.Errorf("%s: a deny rule it cannot enforce: %v, want refused naming the rule", name, err)
		}
		ok := tm
		ok.Deny = nil
		pl, err := Map(ok, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pl.PermissionMode != "plan" || pl.Model != "" {
			t.Errorf("%s: mode %q model %q, want plan and the CLI's own model", name, pl.PermissionMode, pl.Model)
		}
		notes := strings.Join(pl.Notes, "\n")
		for _, f := range []string{"--settings", "--managed-settings", "--plugin-dir", "--plugin-dir-no-mcp", "--plugin-url",
			"--project-config-root", "--mcp-config", "--strict-mcp-config", "--proactivity", "--setting-sources", "claude-opus-5-5", "--effort"} {
			if !strings.Contains(notes, f) {
				t.Errorf("%s: no note names %s:\n%s", name, f, notes)
			}
		}
	}
	// A deny rule the profile maps is enforced with its flags.
	p := shipped(t, "codex")
	p.Deny = map[string][]string{"WebFetch": {"-c", "x=1"}}
	one := tm
	one.Deny = []string{"WebFetch"}
	if pl, err := Map(one, p); err != nil || !slices.Equal(pl.Deny, []string{"WebFetch"}) {
		t.Errorf("a mapped deny rule: %+v, %v", pl, err)
	}
	var ue *UnknownFlagError
	if _, err := ParseClaudeArgs(append(slices.Clone(recorded), "--restricted")); !errors.As(err, &ue) || ue.Flag != "--restricted" {
		t.Errorf("--restricted: %v, want refused", err)
	}
	if _, err := ParseClaudeArgs(append(slices.Clone(recorded), "--brand-new", "x")); !errors.As(err, &ue) || ue.Flag != "--brand-new" {
		t.Errorf("an unknown flag: %v", err)
	}
	if _, err := ParseClaudeArgs([]string{"--model", "x"}); err == nil {
		t.Error("a line without --agent-name and --team-name was taken for a teammate's")
	}
}

// TestPermissionModes: Claude's modes map to the CLI's; bubble asks in
// the CLI's own pane and says so; skipping permissions bypasses.
func TestPermissionModes(t *testing.T) {
	p := shipped(t, "codex")
	for args, want := range map[string]string{
		"":                               "default",
		"--dangerously-skip-permissions": "bypassPermissions",
		"--permission-mode acceptEdits":  "acceptEdits",
		"--permission-mode auto":         "auto",
		"--permission-mode bubble":       "default",
		"--permission-mode dontAsk":      "dontAsk",
	} {
		tm, err := ParseClaudeArgs(append([]string{"--agent-name", "a", "--team-name", "t"}, strings.Fields(args)...))
		if err != nil {
			t.Fatal(err)
		}
		pl, err := Map(tm, p)
		if err != nil || pl.PermissionMode != want {
			t.Errorf("%q: %q, %v; want %s", args, pl.PermissionMode, err, want)
		}
		if strings.Contains(args, "bubble") && !strings.Contains(strings.Join(pl.Notes, " "), "own pane") {
			t.Errorf("bubble: no note says approvals are asked in the pane: %v", pl.Notes)
		}
	}
}

// TestRouterSetupFoundFromItsLink: the link Claude Code runs finds the
// setup beside it; Claude's own teammates get a session id unless they
// have one or resume.
func TestRouterSetupFoundFromItsLink(t *testing.T) {
	state := t.TempDir()
	exe, _ := os.Executable()
	link, err := Install(state, Config{Claude: "/opt/claude", Offered: []string{"codex"}, Exe: exe})
	if err != nil {
		t.Fatal(err)
	}
	if !IsRouter(link) {
		t.Fatalf("%s is not recognised as the router", link)
	}
	if target, _ := os.Readlink(link); target != exe {
		t.Errorf("link to %q, want %q", target, exe)
	}
	c, err := Load(link)
	if err != nil || c.Claude != "/opt/claude" || !c.Routes("codex") || c.Routes("") || c.Routes("Explore") {
		t.Fatalf("loaded %+v, %v", c, err)
	}
	if st, _ := os.Stat(filepath.Dir(link)); st.Mode().Perm() != 0o700 {
		t.Errorf("router folder mode %v", st.Mode().Perm())
	}
	id := func() string { return "new-id" }
	if a, s := ClaudeArgs([]string{"--agent-name", "a"}, id); s != "new-id" || !slices.Equal(a, []string{"--agent-name", "a", "--session-id", "new-id"}) {
		t.Errorf("no session id: %v %q", a, s)
	}
	if a, s := ClaudeArgs([]string{"--session-id", "mine"}, id); s != "mine" || len(a) != 2 {
		t.Errorf("own session id: %v %q", a, s)
	}
	for _, c := range []struct {
		args    []string
		session string
		added   bool
	}{
		{[]string{"--resume", "x"}, "x", false},
		{[]string{"--resume=x"}, "x", false},
		{[]string{"--resume", "x", "--fork-session"}, "new-id", true},
		{[]string{"--continue", "--fork-session"}, "new-id", true},
		{[]string{"--continue"}, "", false},
		{[]string{"--agent-name", "-c"}, "new-id", true}, // a value, not --continue
	} {
		a, s := ClaudeArgs(c.args, id)
		if s != c.session || (len(a) == len(c.args)+2) != c.added {
			t.Errorf("%v: %v, session %q; want %q, id added %v", c.args, a, s, c.session, c.added)
		}
	}

	// Run any other way than from the folder 'paneteam claude' made, the
	// router runs nothing a router.json there names.
	planted := filepath.Join(t.TempDir(), "project")
	os.MkdirAll(planted, 0o700)
	os.WriteFile(filepath.Join(planted, "router.json"), []byte(`{"claude":"/bin/echo","offered":[],"exe":"/bin/echo"}`), 0o600)
	for _, l := range []string{LinkName, filepath.Join(planted, LinkName)} {
		if c, err := Load(l); err == nil {
			t.Errorf("Load(%q) took a planted setup: %+v", l, c)
		}
	}
	os.Chmod(filepath.Dir(link), 0o777)
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "lets others write it") {
		t.Errorf("a router folder others can write: %v", err)
	}
	os.Chmod(filepath.Dir(link), 0o700)
}

// TestAgentTypesMergeWithThePersonsOwn: the person's --agents keep their
// types; one of the same name wins over paneteam's and is named.
func TestAgentTypesMergeWithThePersonsOwn(t *testing.T) {
	defs := Definitions([]*profile.Profile{shipped(t, "codex"), shipped(t, "gemini")})
	if d := defs["codex"]; !strings.Contains(d.Prompt, "You are not OpenAI Codex CLI") || !strings.Contains(d.Description, "teammate") {
		t.Errorf("codex's definition: %+v", d)
	}
	v, added, notes, err := MergeAgents(`{"gemini":{"description":"mine","prompt":"p"},"rev":{"description":"r","prompt":"q"}}`, defs)
	if err != nil || !slices.Equal(added, []string{"codex"}) || len(notes) != 1 || !strings.Contains(v, `"mine"`) || !strings.Contains(v, `"rev"`) {
		t.Fatalf("merged %s, added %v, notes %v, %v", v, added, notes, err)
	}
	if _, _, _, err := MergeAgents("agents.json", defs); err == nil {
		t.Error("a --agents that is not a JSON object was taken")
	}
}
