package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// PersonConfig writes, under home, the config a person would have for c
// to use the scripted model m as its provider (Codex's config.toml,
// Gemini CLI's settings.json, OpenCode's opencode.json allowing every
// tool), and returns the variables c then needs (its key, its endpoint,
// nothing phoning home). paneteam must run c on this login as it is,
// never writing these files.
func PersonConfig(t testing.TB, c CLI, home string, m *Model) []string {
	t.Helper()
	switch c.Name {
	case Codex.Name:
		writeFile(t, filepath.Join(home, ".codex", "config.toml"), fmt.Sprintf(`model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, m.URL()))
	case Gemini.Name:
		writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "model": {"name": "fake-model"},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "ide": {"enabled": false}
}`)
	case OpenCode.Name:
		writeFile(t, filepath.Join(home, ".config", "opencode", "opencode.json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
    "options": {"baseURL": "%s/v1", "apiKey": "test-key"},
    "models": {"fake-model": {"name": "fake-model", "tool_call": true}}}},
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "permission": {"*": "allow"},
  "autoupdate": false,
  "share": "disabled"
}`, m.URL()))
	default:
		t.Fatalf("no person's config for %s", c.Name)
	}
	return PersonEnv(c, m)
}

// PersonEnv is what PersonConfig returns, known before the person's HOME
// exists: a test that starts the person's first program (Claude's lead)
// with it writes their config once that program's HOME is made.
func PersonEnv(c CLI, m *Model) []string {
	switch c.Name {
	case Codex.Name:
		return []string{"FAKE_API_KEY=test-key"}
	case Gemini.Name:
		return []string{"GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL=" + m.URL()}
	case OpenCode.Name:
		return []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1"}
	}
	return nil
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
