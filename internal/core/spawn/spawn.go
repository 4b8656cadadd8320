// Package spawn adds a teammate to a team and starts it in a pane: the
// one operation behind 'paneteam spawn-pane' and every front end that
// starts teammates. Its mirror, departure, is package lifecycle.
//
// Run takes one Request and does, in order: choose the backend, check the
// program (Program.Check), add the member under the config lock (its
// final name and colour decided there), give it a git worktree, prepare
// its command line (a Claude Code teammate's signing key, Program.Prepare),
// deliver its first prompt, start the pane, record the pane and the launch
// (in paneteam's state folder: package launches; on tmux while the
// startup check waits). When a step
// fails, every earlier one is undone in reverse order: the prompt taken
// back, the key forgotten, the worktree removed (fail-closed: a worktree
// holding work is kept), the member row removed.
//
// What the teammate runs is a Program's business (Command, Claude):
// building its argv and environment is kept apart from starting it on a
// backend, so other launchers plug in beside them.
package spawn

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// DefaultStartupCheck is how long a new command is watched before the
// spawn reports success: long enough to catch a command that cannot
// start (missing file, bad flag, wrong directory) and still show it as a
// failure, short next to the time a person takes to look at the pane.
const DefaultStartupCheck = 50 * time.Millisecond

// Request is one teammate to add and start.
type Request struct {
	Team team.Team
	// Config is the team as the caller read it (nil: read here). The
	// member is added to the config as it is under the lock.
	Config *team.Config
	Lock   lockfile.Options
	// Member is the row to add: Name (made unique: alice, alice-2, ...),
	// Color (default: the first no member has), AgentType, Model, Prompt
	// (the first message, see PromptFrom), PlanModeRequired and Cwd (the
	// command's folder, an existing one; "": the current folder).
	Member team.Member
	// Program builds what the teammate runs: Command, or Claude.
	Program Program
	// Backend starts the pane; nil: chosen by BackendName ("" or
	// backend.Auto, tmux, iterm2, in-process) from BackendEnv, beside a
	// live Claude Code lead's own pane in a team it leads.
	Backend     backend.Backend
	BackendName string
	BackendEnv  backend.Env
	// Caller is the spawning process: its environment (PATH, the
	// variables a Claude Code teammate inherits, the key store), whether
	// it signs as the lead, its warnings.
	Caller post.Caller
	// Root is the team root as the person gave it, passed on as
	// PANETEAM_ROOT ("" when none was given; the team's root is passed on
	// anyway).
	Root string
	// Layout arranges the panes; KeepLayout makes it the team's layout.
	Layout     layout.Policy
	KeepLayout bool
	// StartupCheck is how long to watch the command for an immediate
	// failure (0: none).
	StartupCheck time.Duration
	// Worktree gives the member its own git worktree
	// (<repo>/.paneteam/worktrees/<team>/<name>, branch paneteam/<team>/<name>).
	Worktree bool
	// PromptFrom is the sender of Member.Prompt; "": Caller.LeadSender.
	PromptFrom string
}

// Result is the teammate started, as spawn-pane --json prints it.
type Result struct {
	AgentID string `json:"agent_id"`
	Name    string `json:"name"`
	PaneID  string `json:"pane_id"`
	Backend string `json:"backend"`
}

// Run adds r.Member to the team and starts it; on failure nothing of it
// is left (see the package comment).
func Run(ctx context.Context, r Request) (Result, error) {
	if r.Program == nil {
		return Result{}, fmt.Errorf("spawn %s: no launcher: say what the teammate runs", r.Member.Name)
	}
	requirePlan(&r.Member, r.Program)
	if r.Member.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Result{}, fmt.Errorf("spawn %s: find the current folder: %w (give its folder)", r.Member.Name, err)
		}
		r.Member.Cwd = wd
	}
	cfg := r.Config
	if cfg == nil {
		var err error
		if cfg, err = team.Load(r.Team.ConfigPath()); err != nil {
			return Result{}, err
		}
	}
	if r.PromptFrom == "" && r.Member.Prompt != "" {
		from, err := r.Caller.LeadSender(cfg)
		if err != nil {
			return Result{}, &post.UsageError{Err: err}
		}
		r.PromptFrom = from
	}
	b := r.Backend
	if b == nil {
		var err error
		if b, err = backend.Choose(besideClaudeLead(ctx, r.BackendEnv, cfg), cfg, r.BackendName); err != nil {
			return Result{}, err
		}
	}
	if err := r.Program.Check(ctx, r.Member.Cwd, r.Caller); err != nil {
		return Result{}, err
	}
	r.Member.BackendType = b.Name()
	return start(ctx, r, b)
}

// start is Run once everything was checked: each step that leaves
// something behind pushes its undo.
func start(ctx context.Context, r Request, b backend.Backend) (Result, error) {
	var undo rollback
	before, m, err := addMember(ctx, r.Team, r.Lock, r.Member)
	if err != nil {
		return Result{}, err
	}
	undo.push(func(ctx context.Context) error {
		if err := forgetMember(ctx, r.Team, r.Lock, m); err != nil {
			return fmt.Errorf("removing %s from the team failed: %v", m.Name, err)
		}
		return nil
	})
	if r.Worktree {
		drop, err := giveWorktree(ctx, r, &m)
		if err != nil {
			return Result{}, undo.run(ctx, err)
		}
		undo.push(drop)
	}
	s := Setup{Team: r.Team, Config: before, Member: m, Lock: r.Lock, Backend: b.Name(), Root: r.Root, Caller: r.Caller}
	launch, err := r.Program.Prepare(ctx, s)
	if err != nil {
		return Result{}, undo.run(ctx, err)
	}
	if launch.Undo != nil {
		undo.push(func(context.Context) error { launch.Undo(); return nil })
	}
	taken, err := deliverPrompt(ctx, r.Team, r.Lock, m, r.PromptFrom, launch.Signer)
	if err != nil {
		return Result{}, undo.run(ctx, err)
	}
	undo.push(taken)
	spec := backend.Spec{Team: r.Team, Config: before, Member: m, Layout: r.Layout, StartupCheck: r.StartupCheck,
		Argv: launch.Argv, Env: withRoot(launch.Env, r.Team.Root)}
	// The pane and the launch are recorded while a backend that can
	// (tmux) watches the new command start, not after: the records wait
	// on the disk, the watch on the clock.
	var early *backend.Pane
	var recErr error
	record := func(p backend.Pane) {
		if recErr = recordPane(ctx, r, b, m, p, launch); recErr == nil {
			keepLaunch(r, m, launch, p)
		}
	}
	var pane backend.Pane
	if w, ok := b.(interface {
		SpawnWhile(context.Context, backend.Spec, func(backend.Pane)) (backend.Pane, error)
	}); ok {
		putBack := keptLaunch(r, m)
		pane, err = w.SpawnWhile(ctx, spec, func(p backend.Pane) { early = &p; record(p) })
		if early != nil && recErr == nil && err != nil {
			putBack()
		}
	} else {
		pane, err = b.Spawn(ctx, spec)
	}
	if err != nil {
		return Result{}, undo.run(ctx, fmt.Errorf("start %s: %w", m.Name, err))
	}
	if launch.Started != nil {
		launch.Started()
	}
	if early == nil || (recErr == nil && !samePane(*early, pane)) {
		record(pane)
	}
	if recErr != nil {
		// Not recorded, so nothing could ever reach it: take it back.
		err := recErr
		if derr := backend.Discard(ctx, b, before, m, pane); derr != nil {
			err = fmt.Errorf("%w (and ending its %s pane %s failed: %v)", err, pane.Backend, pane.ID, derr)
		}
		return Result{}, undo.run(ctx, err)
	}
	noteWorktreePane(r, m, pane)
	return Result{AgentID: m.AgentID, Name: m.Name, PaneID: pane.ID, Backend: pane.Backend}, nil
}

// samePane says whether a and b are the same pane and process, as a
// backend gives them (recordPane adds the rest of the member's record).
func samePane(a, b backend.Pane) bool {
	if a.ID != b.ID || a.Backend != b.Backend || (a.Meta == nil) != (b.Meta == nil) {
		return false
	}
	return a.Meta == nil || (a.Meta.PID == b.Meta.PID && a.Meta.PIDStart == b.Meta.PIDStart &&
		a.Meta.TmuxSocket == b.Meta.TmuxSocket && a.Meta.HostState == b.Meta.HostState)
}

// rollback is the undo of the steps done so far, run last first.
type rollback []func(context.Context) error

func (u *rollback) push(f func(context.Context) error) { *u = append(*u, f) }

// run undoes every step, even when the spawn's context is done, and
// returns cause with what could not be undone.
func (u rollback) run(ctx context.Context, cause error) error {
	ctx = context.WithoutCancel(ctx)
	for i := len(u) - 1; i >= 0; i-- {
		if err := u[i](ctx); err != nil {
			cause = fmt.Errorf("%w (and %v)", cause, err)
		}
	}
	return cause
}
