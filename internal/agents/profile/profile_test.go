package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestShippedProfilesParse(t *testing.T) {
	all, err := All(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
		if p.Tested.Min == "" || !p.IdleHook || p.HookInput.From == "" || len(p.MCP) == 0 && p.EnvJSON == nil && len(p.Files) == 0 {
			t.Errorf("%s: incomplete profile: %+v", p.Name, p)
		}
	}
	if strings.Join(names, " ") != "codex gemini opencode" {
		t.Errorf("shipped profiles: %v", names)
	}
}

// The Codex command line registers the MCP server and the hook for this
// run only, trusts the folder, never starts the daemon, and keeps the
// prompt after "--" so a prompt starting with '-' is not a flag.
func TestCodexLaunch(t *testing.T) {
	p, err := Find("codex", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	person := t.TempDir()
	os.MkdirAll(filepath.Join(person, ".codex"), 0o700)
	os.WriteFile(filepath.Join(person, ".codex", "auth.json"), []byte(`{"token":"x"}`), 0o600)
	os.WriteFile(filepath.Join(person, ".codex", "config.toml"), []byte(`model = "o3"`), 0o600)
	l, err := Build(p, Options{Team: "review", Agent: "coder", Root: "/r", Cwd: `/w/a "b"`, Home: home,
		Paneteam: "/bin/paneteam", Prompt: "-fix the bug", Model: "gpt-x", PermissionMode: "bypassPermissions",
		Getenv: env(map[string]string{"HOME": person})})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"codex", "--no-daemon",
		"-c", `projects={ "/w/a \"b\""={trust_level="trusted"} }`,
		"-c", "check_for_update_on_startup=false", "-c", "analytics.enabled=false",
		"-c", `mcp_servers.team={command="/bin/paneteam",args=["mcp"],env={PANETEAM_TEAM="review",PANETEAM_AGENT="coder",PANETEAM_ROOT="/r",PANETEAM_LEAD_VERIFY_KEY=""},default_tools_approval_mode="approve"}`,
		"-c", `notify=["/bin/paneteam","agent-hook","codex"]`,
		"--dangerously-bypass-approvals-and-sandbox", "-m", "gpt-x", "--"}
	if !slices.Equal(l.Argv[:len(want)], want) {
		t.Errorf("argv:\n%q\nwant it to start with\n%q", l.Argv, want)
	}
	prompt := l.Argv[len(l.Argv)-1]
	if !strings.HasPrefix(prompt, "You are coder, a teammate in the team \"review\"") || !strings.HasSuffix(prompt, "\n\n-fix the bug") {
		t.Errorf("prompt: %q", prompt)
	}
	if !slices.Contains(l.Env, "CODEX_HOME="+home+"/codex") || !slices.Contains(l.Env, "PANETEAM_AGENT=coder") {
		t.Errorf("env: %q", l.Env)
	}
	if err := l.Write(); err != nil {
		t.Fatal(err)
	}
	// The person's login is linked, their config copied: neither written.
	if target, err := os.Readlink(filepath.Join(home, "codex", "auth.json")); err != nil || target != filepath.Join(person, ".codex", "auth.json") {
		t.Errorf("auth.json: %q %v", target, err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "codex", "config.toml")); string(b) != `model = "o3"` {
		t.Errorf("config.toml copy: %q", b)
	}
	if _, err := Build(p, Options{Home: home, PermissionMode: "nonsense"}); err == nil || !strings.Contains(err.Error(), "use one of") {
		t.Errorf("unknown permission mode: %v", err)
	}
}

// Gemini CLI's settings for the run are the person's settings with the
// MCP server and the hook merged in, in a folder of the run's own.
func TestGeminiSettingsMerge(t *testing.T) {
	p, err := Find("gemini", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	home, person := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(person, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(person, ".gemini", "settings.json"), []byte(`{
  // their own
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"vimMode": true}
}`), 0o600)
	l, err := Build(p, Options{Team: "review", Agent: "coder", Root: "/r", Cwd: "/w", Home: home, Paneteam: "/opt/pane team/paneteam",
		Prompt: "go", Getenv: env(map[string]string{"HOME": person})})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(home, "gemini", ".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Security   map[string]any
		General    map[string]any
		MCPServers map[string]struct {
			Command string
			Env     map[string]string
		}
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Security == nil || s.General["vimMode"] != true || s.General["enableAutoUpdate"] != false ||
		s.MCPServers["team"].Command != "/opt/pane team/paneteam" || s.MCPServers["team"].Env["PANETEAM_AGENT"] != "coder" ||
		s.Hooks["AfterAgent"][0].Hooks[0].Command != `'/opt/pane team/paneteam' agent-hook gemini` {
		t.Errorf("settings:\n%s", b)
	}
	if got := l.Argv[len(l.Argv)-2]; got != "-i" {
		t.Errorf("argv %q: want the prompt after -i", l.Argv)
	}
}

func TestUserProfileAddsACLI(t *testing.T) {
	cfg := t.TempDir()
	dir := filepath.Join(cfg, "paneteam", "agents")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "aider.json"), []byte(`{"program":"aider","tested":{"min":"0.80.0"},
"permission":{"default":[]},"prompt":["--message","{{prompt}}"]}`), 0o600)
	p, err := Find("aider", env(map[string]string{"XDG_CONFIG_HOME": cfg}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != filepath.Join(dir, "aider.json") || !p.Tested.Contains("0.86.1") || p.Tested.Contains("0.9.0") {
		t.Errorf("profile %+v", p)
	}
	// The README's example.
	os.WriteFile(filepath.Join(dir, "myagent.json"), []byte(readmeExample), 0o600)
	my, err := Find("myagent", env(map[string]string{"XDG_CONFIG_HOME": cfg}))
	if err != nil {
		t.Fatalf("the README's example profile: %v", err)
	}
	l, err := Build(my, Options{Team: "t", Agent: "a", Home: "/h", Paneteam: "/bin/paneteam", Prompt: "p", Model: "m",
		Getenv: env(map[string]string{"HOME": t.TempDir()})})
	if err != nil || !slices.Contains(l.Argv, "team=/bin/paneteam") || l.Argv[len(l.Argv)-2] != "--" {
		t.Errorf("the README's example: %q %v", l.Argv, err)
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"program":"x","args":["{{nope}}"]}`), 0o600)
	if _, err := All(env(map[string]string{"XDG_CONFIG_HOME": cfg})); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("a bad user profile: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"program":"x","files":[{"path":"/etc/x","text":"y"}]}`), 0o600)
	if _, err := All(env(map[string]string{"XDG_CONFIG_HOME": cfg})); err == nil || !strings.Contains(err.Error(), "outside the run's own folder") {
		t.Errorf("a profile writing outside its folder: %v", err)
	}
}

// readmeExample is the profile README.md shows.
const readmeExample = `{
  "title": "My agent",
  "program": "myagent",
  "tested": {"min": "1.2.0", "max": "1.4.0"},
  "args": ["--no-telemetry"],
  "mcp": ["--mcp-server", "team={{paneteam}}", "--mcp-arg", "mcp"],
  "model": ["--model", "{{model}}"],
  "permission": {"default": [], "bypassPermissions": ["--yes"]},
  "prompt": ["{{prompt}}"],
  "promptAfterDashes": true,
  "env": {"MYAGENT_HOME": "{{home}}/myagent"},
  "dirs": ["{{home}}/myagent"],
  "files": [{"path": "{{home}}/myagent/login.json", "linkTo": ["{{env:HOME}}/.myagent/login.json"]}],
  "quit": "/exit"
}
`

// {{toml:...}} writes a TOML basic string valid whatever the text holds:
// JSON's escapes, and DEL, which TOML forbids raw and JSON leaves.
func TestTOMLPlaceholderEscapesWhatTOMLForbids(t *testing.T) {
	p, err := Parse([]byte(`{"program":"x","permission":{"default":[]},"files":[{"path":"{{home}}/c.toml","text":"prompt = {{toml:prompt}}"}]}`), "x", "test")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Build(p, Options{Team: "t", Agent: "a", Home: "/h", Paneteam: "/bin/paneteam", Prompt: "a\x7fb\x1b\"c\\",
		Getenv: env(map[string]string{})})
	if err != nil || len(l.Files) != 1 {
		t.Fatalf("Build: %v", err)
	}
	got := string(l.Files[0].Data)
	if !strings.HasSuffix(got, `a\u007fb\u001b\"c\\"`) || strings.ContainsAny(got, "\x7f\x1b") {
		t.Fatalf("file holds %q, want the prompt's DEL and ESC escaped", got)
	}
}

// An asks entry that matches nothing would mark every report of the hook
// as a dialog: refused. The shipped Gemini CLI and OpenCode profiles say
// which report is theirs; Codex's notify has none.
func TestAsksNeedsAMatch(t *testing.T) {
	if _, err := Parse([]byte(`{"program":"x","asks":{"match":{}}}`), "x", "test"); err == nil || !strings.Contains(err.Error(), "asks.match") {
		t.Errorf("an empty asks.match: %v", err)
	}
	all, err := All(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		if got := p.Asks != nil; got != (p.Name != "codex") {
			t.Errorf("%s: asks %+v", p.Name, p.Asks)
		}
	}
}

// TestOpenCodeModesFromItsEnvironment: OpenCode takes approvals only from
// its config, so bypassPermissions and acceptEdits come as
// OPENCODE_PERMISSION, merged over the person's config; a mode named in
// permissionEnv but not in permission is refused.
func TestOpenCodeModesFromItsEnvironment(t *testing.T) {
	p, err := Find("opencode", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[string]string{"bypassPermissions": `"bash":"allow"`, "acceptEdits": `{"edit":"allow"}`, "default": ""} {
		l, err := Build(p, Options{Team: "t", Agent: "a", Cwd: "/w", Home: "/h", Paneteam: "/pt", PermissionMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, kv := range l.Env {
			if v, ok := strings.CutPrefix(kv, "OPENCODE_PERMISSION="); ok {
				got = v
			}
		}
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: OPENCODE_PERMISSION=%q, want %q", mode, got, want)
		}
	}
	if _, err := Parse([]byte(`{"program":"x","permission":{"default":[]},"permissionEnv":{"plan":{"A":"1"}}}`), "x", "test"); err == nil {
		t.Error("permissionEnv for a mode permission does not list was taken")
	}
}
