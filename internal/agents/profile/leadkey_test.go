package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leadKeyVar is provenance.EnvLeadVerifyKey, which this package, below
// the protocol's, does not import.
const leadKeyVar = "PANETEAM_LEAD_VERIFY_KEY"

// mcpEnv returns the environment each shipped profile gives its MCP
// server, read back from where the CLI reads it: Codex's -c value, Gemini
// CLI's settings file, OpenCode's config variable.
func mcpEnv(t *testing.T, name, key string) map[string]string {
	t.Helper()
	p, err := Find(name, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	l, err := Build(p, Options{Team: "review", Agent: "coder", Root: "/r", Cwd: "/w", Home: home, Paneteam: "/bin/paneteam",
		LeadVerifyKey: key, Getenv: env(map[string]string{"HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	switch name {
	case "codex":
		for _, a := range l.Argv {
			if v, ok := strings.CutPrefix(a, "mcp_servers.team="); ok {
				return codexEnv(t, v)
			}
		}
	case "gemini":
		if err := l.Write(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(home, "gemini", ".gemini", "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			MCPServers map[string]struct{ Env map[string]string }
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s.MCPServers["team"].Env
	case "opencode":
		for _, kv := range l.Env {
			if v, ok := strings.CutPrefix(kv, "OPENCODE_CONFIG_CONTENT="); ok {
				var c struct {
					MCP map[string]struct{ Environment map[string]string }
				}
				if err := json.Unmarshal([]byte(v), &c); err != nil {
					t.Fatal(err)
				}
				return c.MCP["team"].Environment
			}
		}
	}
	t.Fatalf("%s: no MCP server environment found", name)
	return nil
}

// codexEnv reads the env={K="V",...} inline table of Codex's
// mcp_servers.team value; its strings are TOML basic strings, which are
// JSON strings for what {{toml:...}} writes.
func codexEnv(t *testing.T, v string) map[string]string {
	t.Helper()
	_, rest, ok := strings.Cut(v, "env={")
	body, _, ok2 := strings.Cut(rest, "}")
	if !ok || !ok2 {
		t.Fatalf("no env={...} in %s", v)
	}
	out := map[string]string{}
	for _, kv := range strings.Split(body, ",") {
		k, q, _ := strings.Cut(kv, "=")
		var s string
		if err := json.Unmarshal([]byte(q), &s); err != nil {
			t.Fatalf("%s in %s: %v", kv, v, err)
		}
		out[k] = s
	}
	return out
}

// Each shipped profile hands its MCP server the lead's verify key, and an
// empty value for a teammate started without one: set, so that a key in
// the CLI's own environment is not inherited, and empty, which the
// server reads as no key.
func TestProfilesPassTheLeadKeyToTheMCPServer(t *testing.T) {
	const key = "1767225590000.MCowBQYDK2VwAyEAA6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"
	for _, name := range []string{"codex", "gemini", "opencode"} {
		for _, k := range []string{key, ""} {
			e := mcpEnv(t, name, k)
			if v, ok := e[leadKeyVar]; !ok || v != k || e["PANETEAM_AGENT"] != "coder" {
				t.Errorf("%s with key %q: MCP server env %v", name, k, e)
			}
		}
	}
}
