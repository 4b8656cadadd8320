package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/router"
	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/core/claudestart"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/diag/claudecheck"
	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/layout"
)

func claudeCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "claude",
		Usage:     "start Claude Code as the lead, its own teammates in paneteam's panes",
		ArgsUsage: "[-- CLAUDE ARGS]",
		Description: `Starts Claude Code (the claude on PATH) in this terminal as a team's lead,
with agent teams on and its tmux teammate mode. Every teammate Claude's lead
spawns lands in a pane paneteam makes, laid out by paneteam and marked as
paneteam's, so that status, the dashboard and 'cleanup --orphans' know it.
Inside tmux the panes open beside Claude's. In kitty, WezTerm, Zellij or
iTerm2 they open as that terminal's own panes (or tabs, with --layout
windows): Claude is given a tmux of paneteam's that carries its calls out
there. kitty needs remote control on (allow_remote_control yes and
listen_on unix:/tmp/kitty in kitty.conf); iTerm2 needs it2 and its Python
API. Anywhere else, or when the terminal cannot be driven (said at start),
they open in a private tmux server that 'paneteam attach --team TEAM' shows.

    paneteam claude
    paneteam claude --layout windows -- --model opus
    alias claude='paneteam claude --'     # in your shell's rc file

Claude's lead is also offered one agent type per agent CLI installed here
(codex, gemini, opencode, and profiles of yours: 'paneteam agents'). Ask it
for one ("get a Codex reviewer for parser.go") and it starts that CLI as a
full teammate in a pane paneteam makes, with the team's tools, its messages,
idle and shutdown as its Claude teammates have them. --offer codex,gemini
(or none) chooses which; so does {"offer": ["codex"]} in claude.json in
paneteam's config folder ($XDG_CONFIG_HOME/paneteam, else ~/.config/paneteam).
Every other teammate runs the same Claude, with every flag, as before.

--worktree (or PANETEAM_WORKTREE=1) gives every pane teammate the lead
spawns, Claude or agent CLI, a git worktree of its own: a full checkout at
.paneteam/worktrees/TEAM/NAME in the repository's main working tree, on the
branch paneteam/TEAM/NAME, started from the commit the lead's folder is at
(its own HEAD when the lead works in a linked worktree), the teammate in the
same subfolder as the lead. /.paneteam/ goes into the repository's
info/exclude; ignored files listed in .worktreeinclude are copied in. Your
checkout, index, HEAD and branches stay as they were. Each teammate is told
its branch and asked to commit there and name it when it reports. Once a
teammate ends, its worktree goes with its branch if it holds no commit and
no change; one with work stays for 'paneteam worktrees' to list, review and
remove. Not a git repository, a bare one, one with no commit yet, or git
missing: said at start, and teammates work in the lead's folder as without
--worktree. A merge, rebase, cherry-pick or revert in progress, or a detached
HEAD: said at start; teammates start from HEAD's commit. Teammates Claude
runs inside its own process (not in a pane) never reach paneteam and work
in the lead's folder.

Resumed (-- --resume ID or -- --continue), Claude's lead gets none of its
pane teammates back. 'paneteam claude -- --resume ID' names the ones that
session had; ask the lead to start each again under the same name, and a
Claude teammate goes on with its own conversation in a pane.

--answer-from-web records the pane this lead runs in (tmux's socket and pane
id; kitty's, WezTerm's, Zellij's or iTerm2's id of it) in paneteam's state
folder, so that 'paneteam web' can show the lead's screen and type your
answer to its own questions (a permission dialog, a plan to approve) into
it. A lead is shown and answered inside tmux, in kitty with remote control
on, in WezTerm (wezterm cli), in Zellij 0.44 or later (whose actions take
--pane-id; an older Zellij types only into the focused pane, so it is not
answered) and in iTerm2 through it2 (its Python API on). Without the flag
the page says that the lead's questions wait in this terminal: it is yours,
and paneteam reads and types into no pane it did not make unless asked.
It is a flag only, given for each lead by hand: no environment variable
turns it on, so that nothing a shell or a script inherits opts a lead in.

Layouts: main-vertical (the lead keeps the left 30%, teammates stacked beside
it), tiled, or windows (a window per teammate, the lead's window untouched).
--dry-run prints what would run; Claude's --teammate-mode is set by paneteam.
--check runs the claude on PATH through paneteam's tmux in a scratch config
folder against a scripted model on 127.0.0.1 (never your account): its lead
spawns one teammate, and the report says whether the pane opened, the
teammate got its prompt, the lead's exit closed it, and which tmux calls
of that release paneteam does not know.`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "layout", Usage: "main-vertical, tiled or windows (default main-vertical)", Sources: ucli.EnvVars("PANETEAM_LAYOUT")},
			&ucli.StringFlag{Name: "backend", Usage: "where the teammates' panes go: auto, tmux, kitty, wezterm, zellij, ghostty (macOS) or iterm2", Value: "auto"},
			&ucli.StringSliceFlag{Name: "offer", Usage: "the agent CLIs Claude's lead may start as teammates (codex, gemini, opencode, your profiles), " +
				"or none; default: the config folder's claude.json, else every one installed"},
			&ucli.BoolFlag{Name: "worktree", Usage: "give every pane teammate a git worktree and branch of its own (see above)", Sources: ucli.EnvVars("PANETEAM_WORKTREE")},
			budgetFlag("every pane teammate's spending limit in US dollars, Claude or agent CLI, held by paneteam's router under it: " + budgetHelp +
				". Teammates Claude runs inside its own process never reach paneteam and are not held to it"),
			&ucli.BoolFlag{Name: "answer-from-web", Usage: "record the pane this lead runs in, so that 'paneteam web' may show its screen and type your answers " +
				"into it (in tmux, kitty, WezTerm, Zellij 0.44+ or iTerm2 with it2); without it the page says the lead's questions wait in this terminal. A flag only: no environment variable turns it on"},
			&ucli.BoolFlag{Name: "dry-run", Usage: "print the command and environment Claude would get, and stop"},
			&ucli.BoolFlag{Name: "check", Usage: "run the installed Claude Code against paneteam's tmux (scratch config, a scripted model on 127.0.0.1, never your account) and report"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readClaudeOptions(c)
			if err != nil {
				return err
			}
			return runClaude(ctx, env, o)
		},
	}
}

type claudeOptions struct {
	Offer   []string // agent CLIs to offer; nil: claude.json, else all installed
	Layout  layout.Kind
	Backend string
	// Worktree gives every pane teammate its own git worktree.
	Worktree bool
	Budget   float64
	// AnswerFromWeb records the lead's pane for paneteam web.
	AnswerFromWeb bool
	DryRun        bool
	Check         bool
	JSON          bool
	Args          []string // Claude Code's own, after --
}

func readClaudeOptions(c *ucli.Command) (claudeOptions, error) {
	kind, err := layout.ParseKind(readFlags(c).String("layout"))
	if err != nil {
		return claudeOptions{}, usagef("--layout: %v", err)
	}
	var offer []string
	for _, o := range readFlags(c).StringSlice("offer") {
		for _, n := range strings.Split(o, ",") {
			if n = strings.TrimSpace(n); n != "" {
				offer = append(offer, n)
			}
		}
	}
	if readFlags(c).IsSet("offer") && len(offer) == 0 {
		offer = []string{"none"}
	}
	return claudeOptions{Offer: offer, Layout: kind, Backend: readFlags(c).String("backend"), Worktree: readFlags(c).Bool("worktree"), DryRun: readFlags(c).Bool("dry-run"), Check: readFlags(c).Bool("check"),
		JSON: readFlags(c).Bool("json"), Args: c.Args().Slice(), Budget: readFlags(c).Float("budget"), AnswerFromWeb: readFlags(c).Bool("answer-from-web")}, checkBudget(readFlags(c).Float("budget"))
}

func runClaude(ctx context.Context, env Env, co claudeOptions) error {
	claude, err := claudestart.FindClaude(env.Getenv("PATH"))
	if err != nil {
		return err
	}
	state, err := env.stateDir()
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	warn := func(format string, args ...any) { warnf(env, format, args...) }
	release, err := spawn.Detector(post.Caller{Getenv: env.Getenv}, env.Environ()).Detect(ctx, claude)
	if err != nil {
		warn("could not tell which Claude Code %s is (%v)", claude, err)
	}
	theirs, args, err := takeAgentsFlag(co.Args)
	if err != nil {
		return err
	}
	o := claudestart.Options{
		Getenv: env.Getenv, Environ: env.Environ(), Exe: env.Exe, Claude: claude,
		Args: args, Layout: co.Layout, Backend: co.Backend, StateDir: state, Cwd: cwd,
	}
	if !release.IsZero() {
		o.Release = release.String()
	}
	l, err := claudestart.Plan(o)
	var ue *claudestart.UsageError
	if errors.As(err, &ue) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if !release.IsZero() && claudeversion.Tested.Less(release) {
		warnNewerOnce(state, release, warn)
	}
	if co.Check {
		return runCheck(ctx, env, claude, o.Release, co.JSON)
	}
	if co.Worktree {
		l.Notes = append(l.Notes, worktreeNotes(ctx, cwd)...)
		if !co.DryRun {
			// What an earlier lead's exit left half done.
			tidyWorktrees(ctx, env, state)
		}
	}
	if n := router.LeadResumeNote(env.Getenv, state, args); n != "" {
		l.Notes = append(l.Notes, n)
	}
	rt, err := router.Prepare(router.Lead{Getenv: env.Getenv, State: state, Exe: env.Exe, Claude: claude, Argv: l.Argv[1:],
		Want: co.Offer, Theirs: theirs, Worktree: co.Worktree, Budget: co.Budget})
	var rue *router.UsageError
	if errors.As(err, &rue) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	// The router's link runs under every pane teammate of Claude's
	// (CLAUDE_CODE_TEAMMATE_COMMAND); the lead is offered the agent CLIs'
	// types through --agents.
	l.Notes = append(l.Notes, rt.Notes...)
	l.Argv = append(l.Argv, rt.Args...)
	l.Env = envlist.Set(l.Env, router.EnvTeammateCommand, rt.Link)
	offered := rt.Offered
	if co.DryRun {
		return printLaunch(env, l, offered, co.JSON)
	}
	for _, n := range l.Notes {
		warn("%s", n)
	}
	if err := l.Prepare(); err != nil {
		return err
	}
	if co.AnswerFromWeb {
		// This process becomes Claude's lead (exec keeps the pid).
		if note, err := claudestart.KeepLeadPane(state, env.Getenv, os.Getpid()); err != nil {
			warn("--answer-from-web: the lead's pane was not recorded, so paneteam web cannot answer it: %v", err)
		} else if note != "" {
			warn("%s", note)
		}
	}
	if err := syscall.Exec(l.Path, l.Argv, l.Env); err != nil {
		return fmt.Errorf("start %s: %w", l.Path, err)
	}
	return nil
}

// warnNewerOnce says, once per release, that Claude Code is newer than
// the newest release paneteam was tested with.
func warnNewerOnce(state string, v claudeversion.Version, warn func(string, ...any)) {
	mark := filepath.Join(state, "claude-newer-"+v.String())
	if _, err := os.Stat(mark); err == nil {
		return
	}
	warn("Claude Code %s is newer than %s, the newest release paneteam's tests ran: 'paneteam claude --check' shows whether its teammates still open in paneteam's panes", v, claudeversion.Tested)
	os.MkdirAll(state, 0o700)
	os.WriteFile(mark, nil, 0o600)
}

// printLaunch shows what would run: the command, the environment paneteam
// changes, the shim and its log, and the notes.
func printLaunch(env Env, l claudestart.Start, offered []string, asJSON bool) error {
	changed := map[string]string{}
	for _, kv := range l.Env {
		k, v, _ := strings.Cut(kv, "=")
		if env.Vars[k] != v || !hasVar(env.Vars, k) {
			changed[k] = v
		}
	}
	var removed []string
	for k := range env.Vars {
		if !envlist.Has(l.Env, k) {
			removed = append(removed, k)
		}
	}
	if asJSON {
		return printJSON(env.Stdout, map[string]any{
			"path": l.Path, "argv": l.Argv, "env": changed, "unset": removed,
			"terminal": l.Terminal, "shim": l.Shim, "log": l.Log, "notes": l.Notes, "offered": offered,
		})
	}
	w := env.Stdout
	fmt.Fprintf(w, "would run: %s %s\n", l.Path, strings.Join(l.Argv[1:], " "))
	fmt.Fprintf(w, "teammates' panes: %s\nshim: %s\nlog: %s\n", l.Terminal, l.Shim, l.Log)
	if len(offered) > 0 {
		fmt.Fprintf(w, "agent CLIs offered to Claude's lead: %s\n", strings.Join(offered, ", "))
	} else {
		fmt.Fprintln(w, "agent CLIs offered to Claude's lead: none")
	}
	keys := make([]string, 0, len(changed))
	for k := range changed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Sort(removed)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s=%s\n", k, changed[k])
	}
	for _, k := range removed {
		fmt.Fprintf(w, "  unset %s\n", k)
	}
	for _, n := range l.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func hasVar(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// runCheck runs 'paneteam claude --check' and prints its report.
func runCheck(ctx context.Context, env Env, claude, release string, asJSON bool) error {
	real, _, err := shim.FindReal(env.Getenv, env.Exe)
	if err != nil {
		return err
	}
	o := claudecheck.Options{Exe: env.Exe, Claude: claude, Release: release, Environ: env.Environ(), Tmux: real}
	if !asJSON {
		o.Progress = func(step string) { fmt.Fprintf(env.Stderr, "paneteam: checking: %s\n", step) }
	}
	rep, err := claudecheck.Run(ctx, o)
	if err != nil {
		return err
	}
	if asJSON {
		if err := printJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else {
		writeCheck(env.Stdout, rep)
	}
	if !rep.OK {
		return exitError{code: ExitFailure, err: errors.New("the check failed (see above)")}
	}
	return nil
}

func writeCheck(w io.Writer, rep *claudecheck.Report) {
	release := rep.Release
	if release == "" {
		release = "(release unknown)"
	}
	fmt.Fprintf(w, "Claude Code %s through paneteam's tmux (tests ran %s):\n", release, rep.Tested)
	for _, s := range rep.Steps {
		if s.OK {
			fmt.Fprintf(w, "  ok    %s (%s)\n", s.What, s.Took)
		} else {
			fmt.Fprintf(w, "  FAIL  %s: %s\n", s.What, s.Why)
		}
	}
	fmt.Fprintf(w, "  %d tmux calls\n", rep.Calls)
	for _, u := range rep.Unknown {
		fmt.Fprintf(w, "  refused by paneteam: %s\n", u)
	}
	for _, u := range rep.Outside {
		fmt.Fprintf(w, "  not in the contract for %s (docs/CLAUDE-TMUX.md): %s\n", rep.Tested, u)
	}
	if rep.OK {
		fmt.Fprintln(w, "ok: this Claude Code's teammates work with paneteam claude")
	} else if rep.Kept != "" {
		fmt.Fprintf(w, "kept for a look: %s (config, state/claude-tmux.log)\n", rep.Kept)
	}
}

// takeAgentsFlag takes Claude's --agents out of args, to be merged with
// paneteam's agent types.
func takeAgentsFlag(args []string) (string, []string, error) {
	var out []string
	theirs := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			out = append(out, args[i:]...)
			return theirs, out, nil
		case a == "--agents":
			if i+1 >= len(args) {
				return "", nil, usagef("--agents needs a JSON object of agent types")
			}
			theirs = args[i+1]
			i++
		case strings.HasPrefix(a, "--agents="):
			theirs = strings.TrimPrefix(a, "--agents=")
		default:
			out = append(out, a)
		}
	}
	return theirs, out, nil
}

// worktreeNotes is what 'paneteam claude --worktree' says at start about
// the folder it runs in.
func worktreeNotes(ctx context.Context, cwd string) []string {
	notes, err := worktree.Preflight(ctx, cwd)
	if err != nil {
		return []string{"--worktree: " + err.Error()}
	}
	for i, n := range notes {
		notes[i] = "--worktree: " + n
	}
	return notes
}

// tidyWorktrees removes the untouched worktrees of teammates that ended
// when their removal was cut short, and says so.
func tidyWorktrees(ctx context.Context, env Env, state string) {
	removed, errs := worktree.Sweep(ctx, worktree.OpenRecords(state))
	for _, r := range removed {
		warnf(env, "removed %s/%s's untouched worktree %s", r.Team, r.Member, r.Path)
	}
	for _, err := range errs {
		warnf(env, "%v", err)
	}
}
