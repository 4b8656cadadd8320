package cli

import "github.com/paneteam/paneteam/mailbox"

// claudeHelp ends spawn-pane's description: what a Claude Code teammate
// is started with.
const claudeHelp = `

A Claude Code teammate (--claude) gets the command line Claude Code's own
lead gives one at the release it runs ('claude --version', remembered per
binary): --agent-id, --agent-name, --team-name, --agent-color,
--parent-session-id, --plan-mode-required, --agent-type, --model, and a
permission flag: --permission-mode MODE (default: default, so it asks
before running tools; bypassPermissions is passed as
--dangerously-skip-permissions; plan is given with --plan-mode-required,
as Claude Code's lead gives it, so the teammate submits its plan to you
('paneteam requests') instead of approving it itself; --plan-mode-required
alone makes it plan too).
Claude Code before 2.1.317 gets no flag for default, before 2.1.202 also
--teammate-mode. In a team paneteam leads, a teammate of Claude Code
2.1.323 or later gets a fresh signing key (--lead-verify-key) and
everything paneteam writes to it as team-lead, user or system is signed,
so it believes its lead (and nothing unsigned in the lead's name);
--no-sign starts it without a key. Its environment gets PANETEAM_TEAM,
PANETEAM_AGENT, PANETEAM_ROOT (with --root), CLAUDECODE=1,
CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1, an empty
CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS, CLAUDE_CONFIG_DIR (the
team's root), and, when set, the API, provider, proxy and CA variables
Claude Code forwards (ANTHROPIC_BASE_URL, HTTPS_PROXY, NODE_EXTRA_CA_CERTS,
DISABLE_*, ...).

    paneteam spawn-pane --team review --name alice --claude --permission-mode acceptEdits --prompt "Fix the flaky test"`

// permissionModes are the modes spawn-pane --permission-mode takes: every
// mode Claude Code knows.
var permissionModes = mailbox.PermissionModes
