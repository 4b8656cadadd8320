package cli

import "github.com/paneteam/paneteam/team"

// argv is the teammate's command line and the variables added to its
// environment: PANETEAM_TEAM, PANETEAM_AGENT, PANETEAM_ROOT (when a root
// was given), and with --claude Claude Code's own.
func (r spawnRequest) argv(t team.Team, cfg *team.Config, m team.Member, backendName string) (argv, env []string) {
	env = []string{"PANETEAM_TEAM=" + t.Name, "PANETEAM_AGENT=" + m.Name}
	if r.root != "" {
		env = append(env, "PANETEAM_ROOT="+r.root)
	}
	if !r.claude {
		return r.command, env
	}
	bin, extra := "claude", []string(nil)
	if len(r.command) > 0 {
		bin, extra = r.command[0], r.command[1:]
	}
	argv = append([]string{bin}, claudeFlags(cfg, m, r.perm, backendName)...)
	return append(argv, extra...), append(env, claudeEnv(r.vars, r.root)...)
}

// claudeFlags are the flags Claude Code starts a teammate with
// (PROTOCOL.md "Spawning a Claude Code teammate"): the three identity
// flags together, plan mode never with the bypass flag.
func claudeFlags(cfg *team.Config, m team.Member, perm, backendName string) []string {
	f := []string{"--agent-id", m.AgentID, "--agent-name", m.Name, "--team-name", cfg.Name, "--agent-color", m.Color}
	if cfg.LeadSessionID != "" {
		f = append(f, "--parent-session-id", cfg.LeadSessionID)
	}
	plan := m.PlanModeRequired != nil && *m.PlanModeRequired
	if plan {
		f = append(f, "--plan-mode-required")
	}
	if m.AgentType != "" {
		f = append(f, "--agent-type", m.AgentType)
	}
	switch {
	case perm == "bypassPermissions" && !plan:
		f = append(f, "--dangerously-skip-permissions")
	case perm == "acceptEdits":
		f = append(f, "--permission-mode", "acceptEdits")
	}
	if m.Model != "" {
		f = append(f, "--model", m.Model)
	}
	mode := "tmux" // Claude Code's teammate mode for any pane backend
	if backendName == team.BackendInProcess {
		mode = team.BackendInProcess
	}
	return append(f, "--teammate-mode", mode)
}

// claudeForwarded are the variables Claude Code passes on to a teammate
// when they are set: its config folder, API routing, proxies, CA bundles.
var claudeForwarded = []string{
	"CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX",
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
}

// claudeEnv is a Claude Code teammate's environment. A team under an
// explicit root is found by the teammate through CLAUDE_CONFIG_DIR.
func claudeEnv(getenv func(string) string, root string) []string {
	env := []string{"CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}
	for _, k := range claudeForwarded {
		v := getenv(k)
		if k == "CLAUDE_CONFIG_DIR" && root != "" {
			v = root
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
