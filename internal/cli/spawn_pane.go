package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/protocol/claudeversion"
	"github.com/paneteam/paneteam/internal/protocol/provenance"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// defaultStartupCheck is how long spawn-pane watches a new command before
// it reports success: long enough to catch a command that cannot start
// (missing file, bad flag, wrong directory) and still show it as a
// failure, short next to the time a person takes to look at the pane.
const defaultStartupCheck = 50 * time.Millisecond

func spawnPaneCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "spawn-pane",
		Usage:     "add a teammate to a team and start its command in a new pane",
		ArgsUsage: "-- COMMAND [ARGS...]",
		Description: `Adds a member to the team's config.json (its name made unique, a colour
no member has yet) and starts COMMAND for it in a pane of its own, with
PANETEAM_TEAM, PANETEAM_AGENT (and PANETEAM_ROOT when --root was given) in
its environment. Prints the new agent id (name@team).

    paneteam spawn-pane --team review --name tester -- npm test -- --watch
    paneteam spawn-pane --team review --name alice --claude --prompt "Review the diff on main"

Inside tmux the first teammate takes the right 70% of the lead's pane and
later ones stack there (--layout main-vertical, --lead-percent 30); outside
tmux they are tiled on a private tmux server ('paneteam attach' shows it).
A --layout or --lead-percent given is kept for the team: later spawns, show,
and the re-layouts after kill-pane and hide arrange the window the same way.
The command is started directly in the pane, nothing is typed into a shell;
if it exits at once its pane stays open with its output and spawn-pane fails.
PANETEAM_TMUX_CONFIG names the tmux config a private server starts with
(default: tmux's own, ~/.tmux.conf).

--prompt is written to the teammate's inbox as its first message, from
team-lead (in a team a live Claude Code process leads, from your own name:
$PANETEAM_AGENT, else $PANETEAM_USER, else "human"; Claude's own pane is
where new panes split, inside tmux). --claude starts a Claude Code teammate (the 'claude' binary, or
COMMAND) with the flags and environment Claude Code gives its own.` + claudeHelp,
		Flags: append([]ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "teammate name (made unique: alice, alice-2, ...)"},
			&ucli.StringFlag{Name: "backend", Usage: "where the pane goes: auto, tmux, iterm2 or in-process", Value: backend.Auto},
			&ucli.StringFlag{Name: "cwd", Usage: "the command's working directory (default: the current one)"},
			&ucli.StringFlag{Name: "color", Usage: "the teammate's colour: " + strings.Join(team.Colors, ", ") + " (default: the first no member has yet)"},
			&ucli.StringFlag{Name: "agent-type", Usage: "agent type recorded for the member (Claude Code: its subagent type)"},
			&ucli.StringFlag{Name: "model", Usage: "model recorded for the member and passed to claude with --claude"},
			&ucli.StringFlag{Name: "prompt", Usage: "first message for the teammate, delivered to its inbox from team-lead"},
			&ucli.BoolFlag{Name: "claude", Usage: "start a Claude Code teammate (claude, or COMMAND, with Claude Code's teammate flags)"},
			&ucli.StringFlag{Name: "permission-mode", Usage: "with --claude: " + strings.Join(permissionModes, ", ") + " (as Claude Code's lead passes it)", Value: defaultPermissionMode},
			&ucli.BoolFlag{Name: "no-sign", Usage: "with --claude: start the teammate without a signing key; nothing written to it is signed"},
			&ucli.BoolFlag{Name: "plan-mode-required", Usage: "with --claude: the teammate must have its plan approved"},
			&ucli.DurationFlag{Name: "startup-check", Usage: "how long to watch the command for an immediate failure", Value: defaultStartupCheck},
			&ucli.BoolFlag{Name: "worktree", Usage: "run the teammate in its own git worktree (<repo>/.paneteam/worktrees/<team>/<name>, branch paneteam/<team>/<name>)"},
			jsonFlag(),
		}, layoutFlags()...),
		Action: func(ctx context.Context, c *ucli.Command) error { return spawnPane(ctx, c, env) },
	}
}

func spawnPane(ctx context.Context, c *ucli.Command, env Env) error {
	req, err := spawnRequestFrom(c, env)
	if err != nil {
		return err
	}
	t, cfg, err := openTeam(ctx, c, env)
	if err != nil {
		return err
	}
	if req.promptFrom, err = promptSender(env, cfg); err != nil {
		return err
	}
	b, err := backend.Choose(spawnBackendEnv(ctx, env, cfg), cfg, c.String("backend"))
	if err != nil {
		return err
	}
	prog := "claude"
	if len(req.command) > 0 {
		prog = req.command[0]
	}
	if err := preflight(prog, req.member.Cwd, env.Getenv("PATH")); err != nil {
		return err
	}
	if req.claude {
		req.version = claudeVersionOf(ctx, env, prog, req.member.Cwd, backendEnv(env).Warn)
		req.sign = !c.Bool("no-sign") && actsAsLead(env)
		if req.keys, err = provenance.DefaultStore(env.Getenv); err != nil {
			req.sign = false
		}
	}
	req.member.BackendType = b.Name()
	if req.policy, req.keepLayout, err = layoutChoice(c, backend.TeamLayout(cfg)); err != nil {
		return err
	}
	res, err := spawnMember(ctx, t, cfg, b, req, lockOpts(c))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return printJSON(env.Stdout, res)
	}
	_, err = fmt.Fprintln(env.Stdout, res.AgentID)
	return err
}

// spawnRequest is a validated spawn-pane call.
type spawnRequest struct {
	member  team.Member
	command []string // COMMAND ARGS; with --claude, the claude binary and extra args
	claude  bool
	perm    string
	root    string // --root as given, passed on as PANETEAM_ROOT
	vars    func(string) string
	policy  layout.Policy
	// keepLayout: --layout or --lead-percent was given; policy becomes the
	// team's layout.
	keepLayout bool
	startup    time.Duration
	// worktree: give the member its own git worktree (giveWorktree).
	worktree bool
	// promptFrom is the sender of --prompt (promptSender).
	promptFrom string
	// With --claude: the release it runs, whether to give it a signing key
	// (kept in keys), see prepareClaude.
	version claudeversion.Version
	sign    bool
	keys    provenance.Store
}

func spawnRequestFrom(c *ucli.Command, env Env) (spawnRequest, error) {
	r := spawnRequest{claude: c.Bool("claude"), perm: c.String("permission-mode"), vars: env.Getenv, startup: c.Duration("startup-check"), worktree: c.Bool("worktree")}
	r.command = c.Args().Slice()
	if len(r.command) > 0 && r.command[0] == "--" {
		r.command = r.command[1:]
	}
	if len(r.command) == 0 && !r.claude {
		return r, usagef("no command to run: give it after --, e.g. paneteam spawn-pane --team T --name N -- bash (or pass --claude)")
	}
	if err := team.CheckName("member", c.String("name")); err != nil {
		return r, usagef("%v", err)
	}
	if c.String("color") != "" && !team.ValidColor(c.String("color")) {
		return r, usagef("--color %q is not a team colour: use one of %s", c.String("color"), strings.Join(team.Colors, ", "))
	}
	if !slices.Contains(permissionModes, r.perm) {
		return r, usagef("--permission-mode %q: use one of %s", r.perm, strings.Join(permissionModes, ", "))
	}
	// Checked before anything happens; applied over the team's kept
	// layout once the config is read.
	if _, _, err := layoutChoice(c, layout.Policy{}); err != nil {
		return r, err
	}
	cwd, err := workDir(c.String("cwd"))
	if err != nil {
		return r, err
	}
	if root, err := rootOf(c, env); err == nil && c.String("root") != "" {
		r.root = root
	}
	var plan *bool
	// Plan mode is plan-mode-required, as Claude Code's lead only ever
	// gives it (PROTOCOL-2.1.330.md §11). Observed with 2.1.330: a teammate
	// given --permission-mode plan alone approves its own ExitPlanMode and
	// leaves plan mode without asking anyone; with --plan-mode-required it
	// sends plan_approval_request and waits for the lead.
	if c.Bool("plan-mode-required") || r.perm == "plan" {
		yes := true
		plan = &yes
	}
	r.member = team.Member{
		Name: c.String("name"), AgentType: c.String("agent-type"), Model: c.String("model"),
		Prompt: c.String("prompt"), Color: c.String("color"), PlanModeRequired: plan, Cwd: cwd,
	}
	return r, nil
}

// workDir resolves --cwd (default: the current folder) and checks it is a
// folder: tmux silently starts elsewhere when it is not.
func workDir(dir string) (string, error) {
	if dir == "" {
		d, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the current folder: %w (pass --cwd)", err)
		}
		return d, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", usagef("--cwd %s is not a folder: give an existing folder", dir)
	}
	return abs, nil
}

// preflight finds the program before any pane exists, so a typo fails
// cleanly, without a member row or a dead pane.
func preflight(prog, cwd, path string) error {
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return fmt.Errorf("cannot run %s: not an executable file (seen from %s)", prog, cwd)
		}
		return nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if st, err := os.Stat(filepath.Join(dir, prog)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return nil
		}
	}
	return fmt.Errorf("cannot run %s: %w (install it or give its full path)", prog, exec.ErrNotFound)
}

// spawnResult is what spawn-pane prints with --json.
type spawnResult struct {
	AgentID string `json:"agent_id"`
	Name    string `json:"name"`
	PaneID  string `json:"pane_id"`
	Backend string `json:"backend"`
}

// spawnMember adds the member under the config lock (its final name and
// colour decided there), writes the prompt to its inbox so it is waiting
// when the teammate first looks, starts the pane, and records the pane.
// When the start fails, the member row and the prompt are taken back.
func spawnMember(ctx context.Context, t team.Team, cfg *team.Config, b backend.Backend, r spawnRequest, lock lockfile.Options) (spawnResult, error) {
	var before *team.Config
	var m team.Member
	_, err := t.Update(ctx, lock, func(cur *team.Config) error {
		snapshot := *cur
		snapshot.Members = append([]team.Member(nil), cur.Members...)
		before = &snapshot
		r.member.JoinedAt = time.Now().UnixMilli()
		added, err := cur.AddMember(r.member)
		if err != nil {
			return err
		}
		m = *added
		return nil
	})
	if err != nil {
		return spawnResult{}, err
	}
	undo := func(cause error) error {
		if err := forgetMember(context.WithoutCancel(ctx), t, lock, m); err != nil {
			return fmt.Errorf("%w (and removing %s from the team failed: %v)", cause, m.Name, err)
		}
		return cause
	}
	if r.worktree {
		drop, err := giveWorktree(ctx, t, lock, &m)
		if err != nil {
			return spawnResult{}, undo(err)
		}
		forget := undo
		undo = func(cause error) error { drop(); return forget(cause) }
	}
	launch, signer, unkey, err := r.prepareClaude(ctx, t, before, m, lock, b.Name())
	if err != nil {
		return spawnResult{}, undo(err)
	}
	forgetMember := undo
	undo = func(cause error) error { unkey(); return forgetMember(cause) }
	prompt, err := deliverPrompt(ctx, t, lock, m, r.promptFrom, signer)
	if err != nil {
		return spawnResult{}, undo(err)
	}
	spec := backend.Spec{Team: t, Config: before, Member: m, Layout: r.policy, StartupCheck: r.startup}
	spec.Argv, spec.Env = r.argv(t, before, m, launch)
	spec.Env = withRoot(spec.Env, t.Root)
	pane, err := b.Spawn(ctx, spec)
	if err != nil {
		if prompt != nil {
			takeBackPrompt(context.WithoutCancel(ctx), t, lock, m, *prompt)
		}
		return spawnResult{}, undo(fmt.Errorf("start %s: %w", m.Name, err))
	}
	_, err = t.Update(ctx, lock, func(cur *team.Config) error {
		row := memberByID(cur, m.AgentID)
		if row == nil {
			return fmt.Errorf("%s left the team while its pane started (pane %s is running)", m.Name, pane.ID)
		}
		row.TmuxPaneID, row.BackendType = pane.ID, pane.Backend
		row.Paneteam = pane.Meta
		if row.Paneteam == nil {
			row.Paneteam = &team.MemberMeta{} // marks the member paneteam's (team.Config.RunBy)
		}
		row.Paneteam.Keyed = launch.key != nil
		backend.Record(cur, b)
		if r.keepLayout {
			backend.KeepLayout(cur, r.policy)
		}
		return nil
	})
	if err != nil {
		// Not recorded, so nothing could ever reach it: take it back.
		if derr := backend.Discard(ctx, b, before, m, pane); derr != nil {
			err = fmt.Errorf("%w (and ending its %s pane %s failed: %v)", err, pane.Backend, pane.ID, derr)
		}
		if prompt != nil {
			takeBackPrompt(context.WithoutCancel(ctx), t, lock, m, *prompt)
		}
		return spawnResult{}, undo(err)
	}
	return spawnResult{AgentID: m.AgentID, Name: m.Name, PaneID: pane.ID, Backend: pane.Backend}, nil
}

func memberByID(cfg *team.Config, id string) *team.Member {
	for i := range cfg.Members {
		if cfg.Members[i].AgentID == id {
			return &cfg.Members[i]
		}
	}
	return nil
}

// forgetMember removes the row spawnMember added (matched by agent id, so
// a same-named member added since is kept).
func forgetMember(ctx context.Context, t team.Team, lock lockfile.Options, m team.Member) error {
	_, err := t.Update(ctx, lock, func(cur *team.Config) error {
		for i := range cur.Members {
			if cur.Members[i].AgentID == m.AgentID && cur.Members[i].JoinedAt == m.JoinedAt {
				cur.Members = append(cur.Members[:i], cur.Members[i+1:]...)
				return nil
			}
		}
		return team.ErrNoChange
	})
	return err
}

// deliverPrompt writes --prompt as the first inbox message, from team-lead
// (PROTOCOL.md "Spawning a Claude Code teammate") or, in a team a live
// Claude Code leads, from the spawner (promptSender); signed by signer
// when the teammate holds a key (PROTOCOL-2.1.330.md §11).
func deliverPrompt(ctx context.Context, t team.Team, lock lockfile.Options, m team.Member, from string, signer mailbox.Signer) (*mailbox.Message, error) {
	if m.Prompt == "" {
		return nil, nil
	}
	if from == "" {
		from = team.LeadName
	}
	msg := mailbox.Message{From: from, Text: m.Prompt, Timestamp: mailbox.Timestamp(time.Now())}
	if err := mailbox.New(t.InboxPath(m.Name), lock).SignedBy(signer).Append(ctx, msg); err != nil {
		return nil, fmt.Errorf("deliver the prompt to %s: %w", m.Name, err)
	}
	return &msg, nil
}

func takeBackPrompt(ctx context.Context, t team.Team, lock lockfile.Options, m team.Member, msg mailbox.Message) {
	mailbox.New(t.InboxPath(m.Name), lock).Update(ctx, func(msgs []mailbox.Message) ([]mailbox.Message, error) {
		out := msgs[:0]
		for _, x := range msgs {
			if !(x.From == msg.From && x.Text == msg.Text && x.Timestamp == msg.Timestamp) {
				out = append(out, x)
			}
		}
		return out, nil
	})
}

// backendEnv is what backends learn about the world: the environment
// captured at start.
// backendEnv is what backends learn of the command's world; their
// announcements (a fallback and its fix) go to stderr.
func backendEnv(env Env) backend.Env {
	return backend.Env{
		Getenv:   env.Getenv,
		LookPath: exec.LookPath,
		Exe:      env.Exe,
		Warn:     func(format string, args ...any) { fmt.Fprintf(env.Stderr, "paneteam: "+format+"\n", args...) },
	}
}
