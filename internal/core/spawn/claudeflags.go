package spawn

import (
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/team"
)

// DefaultPermissionMode is a Claude Code teammate's mode when none is
// asked for: it asks before running tools, as a lead in default mode
// gives its own.
const DefaultPermissionMode = "default"

// claudeLaunch is what a Claude Code teammate's command line depends on
// besides its member row.
type claudeLaunch struct {
	version claudeversion.Version // zero: unknown, taken as Tested
	key     *provenance.Key       // nil: started without --lead-verify-key
	backend string
	session string // --session-id; "": none given
}

// SessionFlags are the session a Claude Code command line names.
type SessionFlags struct {
	ID       string // --session-id
	Resumed  string // --resume ID ("" for none, or a --resume that picks)
	Resuming bool   // --resume or --continue
	Fork     bool   // --fork-session
}

// ReadSessionFlags reads Claude Code's session flags from args, up to a
// "--". takesValue, when set, names other flags whose value follows
// them, so that a value such as "-c" is not read as a flag.
func ReadSessionFlags(args []string, takesValue func(string) bool) SessionFlags {
	var f SessionFlags
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			break
		}
		name, val, hasVal := strings.Cut(args[i], "=")
		next := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				return args[i]
			}
			return ""
		}
		switch name {
		case "--session-id":
			f.ID = next()
		case "--resume", "-r":
			f.Resuming, f.Resumed = true, next()
		case "--continue", "-c":
			f.Resuming = true
		case "--fork-session":
			f.Fork = true
		default:
			if takesValue != nil && takesValue(name) && !hasVal && i+1 < len(args) {
				i++
			}
		}
	}
	return f
}

// personSession reads the person's own Claude Code arguments for the
// session they choose: --session-id ID is that session; --resume ID
// (without --fork-session) continues ID; --continue, a --resume without
// an id, or a fork make a session paneteam cannot name. own says the
// person chose, so paneteam passes no --session-id of its own (Claude
// Code refuses one beside --resume or --continue without a fork).
func personSession(args []string) (id string, own bool) {
	f := ReadSessionFlags(args, nil)
	own = f.ID != "" || f.Resuming
	if f.ID == "" && !f.Fork {
		return f.Resumed, own
	}
	return f.ID, own
}

// claudeFlags are the flags Claude Code's lead starts a teammate with, in
// its order (Claude Code, docs/PROTOCOL.md §14; older releases
// per claudeversion's cut-overs): the three identity flags together, the
// key, plan mode, type, the permission flag, the model.
func claudeFlags(cfg *team.Config, m team.Member, perm string, l claudeLaunch) []string {
	feat := l.version.Features()
	f := []string{"--agent-id", m.AgentID, "--agent-name", m.Name, "--team-name", cfg.Name, "--agent-color", m.Color}
	if cfg.LeadSessionID != "" {
		f = append(f, "--parent-session-id", cfg.LeadSessionID)
	}
	if l.key != nil && feat.LeadVerifyKey {
		f = append(f, "--lead-verify-key", l.key.Flag())
	}
	plan := m.PlanModeRequired != nil && *m.PlanModeRequired
	if plan {
		f = append(f, "--plan-mode-required")
	}
	if m.AgentType != "" {
		f = append(f, flagValue("--agent-type", m.AgentType)...)
	}
	f = append(f, permissionFlag(perm, plan, feat.PermissionAlways)...)
	if m.Model != "" {
		f = append(f, flagValue("--model", m.Model)...)
	}
	if feat.TeammateMode {
		mode := "tmux" // Claude Code's teammate mode for any pane backend
		if l.backend == team.BackendInProcess {
			mode = team.BackendInProcess
		}
		f = append(f, "--teammate-mode", mode)
	}
	return f
}

// permissionFlag is the permission flag for mode, as Claude Code's lead
// writes it. From 2.1.317 (always): plan-mode-required makes it plan,
// bypassPermissions is --dangerously-skip-permissions, every other mode
// --permission-mode MODE. Before: nothing with --plan-mode-required or for
// default, the others as from 2.1.317. A mode the person asked for is
// passed as asked; Claude's rule that a lead in plan or dontAsk gives
// default is about the lead's own mode, which paneteam does not have.
func permissionFlag(mode string, plan, always bool) []string {
	if mode == "" {
		mode = DefaultPermissionMode
	}
	if plan {
		if !always {
			return nil
		}
		mode = "plan"
	}
	switch {
	case mode == "bypassPermissions":
		return []string{"--dangerously-skip-permissions"}
	case mode == DefaultPermissionMode && !always:
		return nil
	}
	return []string{"--permission-mode", mode}
}

// flagValue writes a flag and its value; a value starting with '-' or
// shaped like a URL goes as --flag=value, as Claude Code writes it
// (§14), so it is never read as a flag of its own.
func flagValue(flag, v string) []string {
	if strings.HasPrefix(v, "-") || strings.Contains(v, "://") {
		return []string{flag + "=" + v}
	}
	return []string{flag, v}
}

// claudeForwarded are the variables Claude Code passes on to a teammate
// when they are set (§14): its config folder, API routing and providers,
// proxies, CA bundles, telemetry switches.
var claudeForwarded = []string{
	"CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL",
	"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY",
	"CLAUDE_CODE_USE_ANTHROPIC_AWS", "CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD",
	"AWS_REGION", "AWS_PROFILE", "ANTHROPIC_VERTEX_PROJECT_ID", "CLOUD_ML_REGION", "GOOGLE_CLOUD_PROJECT",
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	"DO_NOT_TRACK", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "DISABLE_BUG_COMMAND",
	"DISABLE_COST_WARNINGS", "DISABLE_NON_ESSENTIAL_MODEL_CALLS", "DISABLE_PROMPT_CACHING",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
}

// ClaudeConfigDir is the config folder a Claude Code started with this
// environment uses: CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// claudeEnv is a Claude Code teammate's environment. A team under an
// explicit root is found by the teammate through CLAUDE_CONFIG_DIR. The
// empty CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS keeps a value
// the pane would otherwise inherit from reaching the teammate, as Claude
// Code's lead does.
func claudeEnv(caller post.Caller, root string) []string {
	env := []string{"CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS="}
	for _, k := range claudeForwarded {
		v := caller.Env(k)
		if k == "CLAUDE_CONFIG_DIR" && root != "" {
			v = root
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
