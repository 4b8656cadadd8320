package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/protocol/claudeversion"
	"github.com/paneteam/paneteam/internal/protocol/provenance"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

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
// mode Claude Code 2.1.330 knows.
var permissionModes = mailbox.PermissionModes

// defaultPermissionMode is a teammate's mode when none is asked for: it
// asks before running tools, as a lead in default mode gives its own.
const defaultPermissionMode = "default"

// claudeLaunch is what a Claude Code teammate's command line depends on
// besides its member row.
type claudeLaunch struct {
	version claudeversion.Version // zero: unknown, taken as Tested
	key     *provenance.Key       // nil: started without --lead-verify-key
	backend string
}

// argv is the teammate's command line and the variables added to its
// environment: PANETEAM_TEAM, PANETEAM_AGENT, PANETEAM_ROOT (when a root
// was given), and with --claude Claude Code's own.
func (r spawnRequest) argv(t team.Team, cfg *team.Config, m team.Member, l claudeLaunch) (argv, env []string) {
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
	argv = append([]string{bin}, claudeFlags(cfg, m, r.perm, l)...)
	return append(argv, extra...), append(env, claudeEnv(r.vars, r.root)...)
}

// claudeFlags are the flags Claude Code's lead starts a teammate with, in
// its order (Claude Code 2.1.330, PROTOCOL-2.1.330.md §11; older releases
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
		mode = defaultPermissionMode
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
	case mode == defaultPermissionMode && !always:
		return nil
	}
	return []string{"--permission-mode", mode}
}

// flagValue writes a flag and its value; a value starting with '-' or
// shaped like a URL goes as --flag=value, as Claude Code writes it
// (§11), so it is never read as a flag of its own.
func flagValue(flag, v string) []string {
	if strings.HasPrefix(v, "-") || strings.Contains(v, "://") {
		return []string{flag + "=" + v}
	}
	return []string{flag, v}
}

// claudeForwarded are the variables Claude Code passes on to a teammate
// when they are set (§11): its config folder, API routing and providers,
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

// claudeEnv is a Claude Code teammate's environment. A team under an
// explicit root is found by the teammate through CLAUDE_CONFIG_DIR. The
// empty CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS keeps a value
// the pane would otherwise inherit from reaching the teammate, as Claude
// Code's lead does.
func claudeEnv(getenv func(string) string, root string) []string {
	env := []string{"CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS="}
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

// claudeLeads reports whether Claude Code leads the team (a valid
// leadProcess, PROTOCOL-2.1.330.md §2), alive or not. Such a team's
// teammates are started without a key: Claude's lead could not sign for
// them, and paneteam must not speak as that lead.
func claudeLeads(cfg *team.Config) bool {
	_, ok := cfg.LeadProcess()
	return ok
}

// actsAsLead reports whether this paneteam process speaks for the team's
// lead: it is not running inside a teammate (PANETEAM_AGENT names one).
// Only such a process signs: a teammate's tool calls must never carry its
// lead's signature.
func actsAsLead(env Env) bool {
	a := env.Getenv("PANETEAM_AGENT")
	return a == "" || a == team.LeadName
}

// leadSigner is the signer a command hands the inboxes it writes to, or
// nil when it does not act as the lead.
func leadSigner(env Env) mailbox.Signer {
	if !actsAsLead(env) {
		return nil
	}
	st, err := provenance.DefaultStore(env.Getenv)
	if err != nil {
		return nil
	}
	return provenance.Lead{Store: st}
}

// claudeVersionOf is the release of the Claude Code binary prog (as
// spawn-pane would run it), remembered per binary in paneteam's state
// folder. An unknown version is reported through warn and taken as
// claudeversion.Tested.
func claudeVersionOf(ctx context.Context, env Env, prog, cwd string, warn func(string, ...any)) claudeversion.Version {
	path := prog
	if !strings.Contains(prog, "/") {
		p, err := lookPathIn(prog, env.Getenv("PATH"))
		if err != nil {
			return claudeversion.Version{}
		}
		path = p
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	d := claudeversion.Detector{Env: env.Environ()}
	if dir, err := provenance.StateDir(env.Getenv); err == nil {
		d.CacheFile = filepath.Join(dir, "claude-versions.json")
	}
	v, err := d.Detect(ctx, path)
	if err != nil {
		warn("could not tell which Claude Code %s is (%v); starting it as Claude Code %s would be", prog, err, claudeversion.Tested)
		return claudeversion.Version{}
	}
	return v
}

func lookPathIn(prog, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, prog)
		if _, err := exec.LookPath(p); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// prepareClaude readies a Claude Code teammate's inbox before its command
// exists, in Claude Code's order (§11): a fresh key stamped now, then the
// inbox cleared to [] so nothing older than the key is waiting, then (by
// the caller) the prompt written signed, then the command started. It
// returns the launch and a function that undoes it (the key forgotten).
func (r spawnRequest) prepareClaude(ctx context.Context, t team.Team, cfg *team.Config, m team.Member, lock lockfile.Options, backendName string) (claudeLaunch, mailbox.Signer, func(), error) {
	l := claudeLaunch{version: r.version, backend: backendName}
	if !r.claude || !r.sign || claudeLeads(cfg) || !r.version.Features().LeadVerifyKey {
		return l, nil, func() {}, nil
	}
	inbox := t.InboxPath(m.Name)
	key, err := r.keys.Create(inbox, time.Now())
	if err != nil {
		return l, nil, nil, fmt.Errorf("make %s's signing key: %w", m.Name, err)
	}
	forget := func() { r.keys.Forget(inbox) }
	in := mailbox.New(inbox, lock)
	if err := in.Reset(ctx); err != nil {
		forget()
		return l, nil, nil, fmt.Errorf("clear %s's inbox: %w", m.Name, err)
	}
	l.key = key
	return l, provenance.Lead{Store: r.keys}, forget, nil
}

// checkSignable refuses to write as the lead (team-lead, user or system)
// to a teammate paneteam started with a signing key when this process
// cannot sign for it: the teammate would show the entry as
// verified="false" and refuse what it asks (a shutdown waited for in vain),
// so saying why at once is better. It happens when this process looks in
// another state folder than the spawn did. Inside another teammate, where
// nothing is ever signed, an explicit --from team-lead is obeyed with a
// warning on stderr, as in a team Claude Code leads.
func checkSignable(env Env, t team.Team, cfg *team.Config, names []string, from string) error {
	if !team.IsLeadSender(from) {
		return nil
	}
	for _, name := range names {
		m := cfg.Member(name)
		if m == nil || m.Paneteam == nil || !m.Paneteam.Keyed {
			continue
		}
		if !actsAsLead(env) {
			fmt.Fprintf(env.Stderr, "paneteam: warning: %s believes %s only when signed, and this process runs inside teammate %s, "+
				"which never signs: %s will show it as verified=\"false\" and refuse what it asks\n",
				m.Name, from, env.Getenv("PANETEAM_AGENT"), m.Name)
			continue
		}
		st, err := provenance.DefaultStore(env.Getenv)
		if err != nil {
			return fmt.Errorf("%s believes %s only when signed, and its key cannot be found: %w", m.Name, from, err)
		}
		if k, err := st.Load(t.InboxPath(m.Name)); err != nil || k == nil {
			why := "no key in " + st.Dir
			if err != nil {
				why = err.Error()
			}
			return fmt.Errorf("%s believes %s only when signed, and its signing key is missing (%s): "+
				"run paneteam with the PANETEAM_STATE_DIR it was spawned with, or spawn it again", m.Name, from, why)
		}
	}
	return nil
}
