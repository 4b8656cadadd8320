package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

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
COMMAND) with the flags and environment Claude Code gives its own.` + claudeHelp + hostHelp,
		Flags: append([]ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "teammate name (made unique: alice, alice-2, ...)"},
			&ucli.StringFlag{Name: "backend", Usage: "where the pane goes: auto, tmux, iterm2, kitty, wezterm, zellij, ghostty (macOS) (a pane of the terminal paneteam runs in) or in-process", Value: backend.Auto},
			&ucli.StringFlag{Name: "cwd", Usage: "the command's working directory (default: the current one)"},
			&ucli.StringFlag{Name: "color", Usage: "the teammate's colour: " + strings.Join(team.Colors, ", ") + " (default: the first no member has yet)"},
			&ucli.StringFlag{Name: "agent-type", Usage: "agent type recorded for the member (Claude Code: its subagent type)"},
			&ucli.StringFlag{Name: "model", Usage: "model recorded for the member and passed to claude with --claude"},
			&ucli.StringFlag{Name: "prompt", Usage: "first message for the teammate, delivered to its inbox from team-lead"},
			agentSpawnFlag(),
			&ucli.BoolFlag{Name: "claude", Usage: "start a Claude Code teammate (claude, or COMMAND, with Claude Code's teammate flags)"},
			&ucli.StringFlag{Name: "permission-mode", Usage: "with --claude: " + strings.Join(permissionModes, ", ") + " (as Claude Code's lead passes it)", Value: spawn.DefaultPermissionMode},
			&ucli.BoolFlag{Name: "no-sign", Usage: "with --claude: start the teammate without a signing key; nothing written to it is signed"},
			&ucli.BoolFlag{Name: "plan-mode-required", Usage: "with --claude: the teammate must have its plan approved"},
			&ucli.BoolFlag{Name: "answers-shutdown", Usage: "COMMAND reads its inbox and answers a shutdown_request itself: shutdown asks it and waits (otherwise a plain COMMAND, which cannot answer, is ended at once)"},
			&ucli.DurationFlag{Name: "startup-check", Usage: "how long to watch the command for an immediate failure", Value: spawn.DefaultStartupCheck},
			budgetFlag("with --claude or --agent: " + budgetHelp + " (a team's budget: team-create --budget)"),
			&ucli.BoolFlag{Name: "worktree", Usage: "run the teammate in its own git worktree (<repo>/.paneteam/worktrees/<team>/<name>, branch paneteam/<team>/<name>, from the commit of --cwd's working tree, a linked one too, in the same subfolder)"},
			jsonFlag(),
		}, append(layoutFlags(), hostFlags()...)...),
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readSpawnPaneOptions(c)
			if err != nil {
				return err
			}
			return runSpawnPane(ctx, env, o)
		},
	}
}

type spawnPaneOptions struct {
	Scope  teamScope
	Layout layoutChoice
	// Command is what the pane runs, after --.
	Command        []string
	Name           string
	Backend        string
	Cwd            string // --cwd as given
	Color          string
	AgentType      string
	Model          string
	Prompt         string
	Claude         bool
	PermissionMode string
	// PermissionModeSet says --permission-mode was given, not defaulted.
	PermissionModeSet bool
	NoSign            bool
	PlanModeRequired  bool
	AnswersShutdown   bool
	StartupCheck      time.Duration
	Worktree          bool
	Agent             string
	Budget            float64
	Host              hostOptions
	JSON              bool
}

// readSpawnPaneOptions reads spawn-pane's flags and refuses, before
// anything happens, what is wrong in them alone.
func readSpawnPaneOptions(c *ucli.Command) (spawnPaneOptions, error) {
	command := c.Args().Slice()
	if len(command) > 0 && command[0] == "--" {
		command = command[1:]
	}
	o := spawnPaneOptions{
		Scope: readTeamScope(c), Layout: readLayout(c), Command: command,
		Name: readFlags(c).String("name"), Backend: readFlags(c).String("backend"), Cwd: readFlags(c).String("cwd"), Color: readFlags(c).String("color"),
		AgentType: readFlags(c).String("agent-type"), Model: readFlags(c).String("model"), Prompt: readFlags(c).String("prompt"),
		Claude: readFlags(c).Bool("claude"), PermissionMode: readFlags(c).String("permission-mode"), PermissionModeSet: readFlags(c).IsSet("permission-mode"),
		NoSign: readFlags(c).Bool("no-sign"), PlanModeRequired: readFlags(c).Bool("plan-mode-required"), AnswersShutdown: readFlags(c).Bool("answers-shutdown"),
		StartupCheck: readFlags(c).Duration("startup-check"), Worktree: readFlags(c).Bool("worktree"),
		Agent: readFlags(c).String("agent"), Budget: readFlags(c).Float("budget"), Host: readHostOptions(c), JSON: readFlags(c).Bool("json"),
	}
	if err := checkBudget(o.Budget); err != nil {
		return o, err
	}
	if len(o.Command) == 0 && !o.Claude && o.Agent == "" {
		return o, usagef("no command to run: give it after --, e.g. paneteam spawn-pane --team T --name N -- bash (or pass --claude)")
	}
	if err := team.CheckName("member", o.Name); err != nil {
		return o, usagef("%v", err)
	}
	if o.Color != "" && !team.ValidColor(o.Color) {
		return o, usagef("--color %q is not a team colour: use one of %s", o.Color, strings.Join(team.Colors, ", "))
	}
	if !slices.Contains(permissionModes, o.PermissionMode) {
		return o, usagef("--permission-mode %q: use one of %s", o.PermissionMode, strings.Join(permissionModes, ", "))
	}
	// Checked before anything happens; applied over the team's kept
	// layout once the config is read.
	if _, _, err := o.Layout.over(layout.Policy{}); err != nil {
		return o, err
	}
	return o, nil
}

func runSpawnPane(ctx context.Context, env Env, o spawnPaneOptions) error {
	req, err := spawnRequest(env, o)
	if err != nil {
		return err
	}
	if req.Team, req.Config, err = o.Scope.open(ctx, env); err != nil {
		return err
	}
	if req.Layout, req.KeepLayout, err = o.Layout.over(backend.TeamLayout(req.Config)); err != nil {
		return err
	}
	if err := budgetSpawn(env, &req, o); err != nil {
		return err
	}
	res, err := spawn.Run(ctx, req)
	if err != nil {
		return postError(err)
	}
	if o.JSON {
		return printJSON(env.Stdout, res)
	}
	_, err = fmt.Fprintln(env.Stdout, res.AgentID)
	return err
}

// spawnRequest turns spawn-pane's options into a spawn.Request (its team
// and layout are added once the team is read).
func spawnRequest(env Env, o spawnPaneOptions) (spawn.Request, error) {
	r := spawn.Request{
		Lock: o.Scope.Lock, BackendName: o.Backend, BackendEnv: backendEnv(env), Caller: callerOf(env),
		StartupCheck: o.StartupCheck, Worktree: o.Worktree,
	}
	// With --host, --cwd is a folder there (onHost); the pane here
	// starts in the current folder.
	cwd := ""
	if o.Host.Host == "" {
		var err error
		if cwd, err = workDir(o.Cwd); err != nil {
			return r, err
		}
	}
	if o.Scope.Root != "" {
		if root, err := env.root(o.Scope.Root); err == nil {
			r.Root = root
		}
	}
	r.Program = spawn.Command{Argv: o.Command, Answers: o.AnswersShutdown, Self: env.Exe}
	if o.Claude {
		r.Program = &spawn.Claude{Command: o.Command, PermissionMode: o.PermissionMode, NoSign: o.NoSign,
			Detector: spawn.Detector(r.Caller, env.Environ())}
	}
	if err := onHost(env, &r, o.Host, o.Cwd, o.Claude); err != nil {
		return r, err
	}
	var plan *bool
	// --permission-mode plan makes it required too: spawn.Run does that
	// for every front end.
	if o.PlanModeRequired {
		yes := true
		plan = &yes
	}
	r.Member = team.Member{
		Name: o.Name, AgentType: o.AgentType, Model: o.Model,
		Prompt: o.Prompt, Color: o.Color, PlanModeRequired: plan, Cwd: cwd,
	}
	if o.Agent != "" {
		return agentSpawn(env, r, o)
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
