// Package lifecycle ends what paneteam started, exactly that, and nothing
// with unsaved work: the shutdown handshake with teammates, removing
// members who leave, deleting a team, and reaping teams (and private tmux
// servers) whose lead process is gone.
//
// Ownership is proven, never assumed: panes are closed through the backend
// that made them (which checks paneteam's @paneteam-agent pane option or a
// recorded id), private tmux servers are stopped only when their name or
// the team's record says paneteam (or Claude Code, for claude-swarm-<pid>)
// started them for a process that is gone, and worktrees are removed
// fail-closed (see package worktree).
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Options is what every lifecycle operation needs.
type Options struct {
	// Lock configures the locks on team files.
	Lock lockfile.Options
	// Backend lets backends be found for members (backend.ForMember).
	Backend backend.Env
	// Signer signs what is written as team-lead to teammates that hold
	// paneteam's key (shutdown requests); nil when the caller does not act
	// as the lead (Claude Code, docs/PROTOCOL.md §11).
	Signer mailbox.Signer
	// Caller is the process that asks, for the check that a keyed
	// teammate will believe its shutdown request
	// (post.Caller.CheckSignable); its zero value is the process Backend's
	// environment describes.
	Caller post.Caller
}

// Departure is what became of one member taken out of a team.
type Departure struct {
	Name string `json:"name"`
	// Removed: the pane is closed and the member is out of config.json.
	Removed       bool      `json:"removed"`
	ReleasedTasks []string  `json:"releasedTasks,omitempty"`
	Worktree      *Worktree `json:"worktree,omitempty"`
	Error         string    `json:"error,omitempty"`
}

// Worktree is what became of a member's worktree.
type Worktree struct {
	Path    string `json:"path"`
	Removed bool   `json:"removed"`
	// Kept says why the worktree stays (uncommitted or unpushed work, a
	// git error, not the folder paneteam made), with where it is.
	Kept string `json:"kept,omitempty"`
	// NotOurs: paneteam has no record of making it (only the member row
	// names it), so it is never paneteam's to remove and keeps nothing
	// else (the member, the team) waiting for it.
	NotOurs bool `json:"notOurs,omitempty"`
}

// closePane ends m's pane through the backend that started it, and for a
// teammate on another host what it left on both machines (remote.Stop). A
// member with neither a backend nor a pane (added by hand, or a lead) has
// nothing paneteam started.
func (o Options) closePane(ctx context.Context, t team.Team, cfg *team.Config, m *team.Member) error {
	if m.BackendType == "" && m.TmuxPaneID == "" {
		return nil
	}
	b, err := backend.ForMember(o.Backend, cfg, m)
	if err != nil {
		return err
	}
	if err := b.Kill(ctx, cfg, m); err != nil {
		return fmt.Errorf("close %s's pane %s: %w", m.Name, m.TmuxPaneID, err)
	}
	if err := remote.Stop(ctx, o.getenv, t.Root, filepath.Base(t.Dir()), m.Name); err != nil {
		return fmt.Errorf("end %s on its host: %w", m.Name, err)
	}
	return nil
}

// alive reports whether m's pane still exists; ok is false when that
// cannot be told (no backend, or the backend failed), which callers must
// treat as "maybe".
func (o Options) alive(ctx context.Context, cfg *team.Config, m *team.Member) (alive, ok bool) {
	if m.BackendType == "" {
		return false, false
	}
	b, err := backend.ForMember(o.Backend, cfg, m)
	if err != nil {
		return false, false
	}
	a, err := b.Alive(ctx, cfg, m)
	return a, err == nil
}

// removeWorktree removes, fail-closed, the worktrees paneteam recorded
// for member name of t (worktree.Records.Take, which removes only the
// folder paneteam made: never through a link planted in its place). The
// member row's worktreePath is never trusted, since others write it: a
// row naming a worktree paneteam has no record of is reported and left
// alone (NotOurs). It returns nil when there is nothing to say.
func (o Options) removeWorktree(ctx context.Context, t team.Team, name, rowPath string, dryRun bool) *Worktree {
	recs, list := o.worktreeRecords(t, name)
	if len(list) == 0 {
		if rowPath == "" {
			return nil
		}
		if err := worktree.Owned(rowPath, t.Name, name); err != nil {
			return &Worktree{Path: rowPath, NotOurs: true, Kept: err.Error()}
		}
		return &Worktree{Path: rowPath, NotOurs: true, Kept: fmt.Sprintf("kept worktree %s: paneteam has no record of giving %s a worktree there "+
			"(only the member row in config.json says so, and others write it), so it removes nothing on its word; remove it yourself if it is yours to remove", rowPath, name)}
	}
	var out *Worktree
	for _, r := range list {
		w := &Worktree{Path: r.Path, Removed: true}
		var err error
		if dryRun {
			err = worktree.Check(ctx, r)
		} else {
			err = recs.Take(ctx, r)
		}
		if err != nil {
			w.Removed, w.Kept = false, err.Error()
			if !worktree.IsKept(err) {
				w.Kept = fmt.Sprintf("kept worktree %s: %v", r.Path, err)
			}
		}
		if out == nil || (out.Removed && !w.Removed) {
			out = w // the one kept is the one to tell
		}
	}
	return out
}

// worktreeRecords is the store of worktree records and member name's
// records in it; none when the state folder cannot be found.
func (o Options) worktreeRecords(t team.Team, name string) (worktree.Records, []worktree.Record) {
	if o.Backend.Getenv == nil {
		return worktree.Records{}, nil
	}
	state, err := provenance.StateDir(o.Backend.Getenv)
	if err != nil {
		return worktree.Records{}, nil
	}
	recs := worktree.OpenRecords(state)
	list, _ := recs.Find(t.Root, t.Name, name)
	return recs, list
}

// Depart takes the named members out of team t for good: closes their
// panes, removes them from config.json, returns their unfinished tasks to
// pending and removes their worktrees fail-closed. A member whose pane
// could not be closed stays in config.json (with the error in its
// Departure); a name that is no longer a member is reported removed. The
// lead cannot depart: delete the team instead (Cleanup).
func (o Options) Depart(ctx context.Context, t team.Team, names []string) ([]Departure, error) {
	cfg, err := team.Load(t.ConfigPath())
	if err != nil {
		return nil, err
	}
	out := make([]Departure, len(names))
	var gone []string
	worktrees := map[string]string{}
	for i, name := range names {
		out[i].Name = name
		m := cfg.Member(name)
		if m == nil {
			out[i].Removed = true
			continue
		}
		out[i].Name = m.Name
		if team.IsLeadName(cfg, m.Name) {
			out[i].Error = "the team lead cannot leave its team: delete the team with 'paneteam cleanup'"
			continue
		}
		if err := RefuseClaudeTeammate(cfg, m); err != nil {
			out[i].Error = err.Error()
			continue
		}
		if err := o.closePane(ctx, t, cfg, m); err != nil {
			out[i].Error = err.Error()
			continue
		}
		gone = append(gone, m.Name)
		worktrees[m.Name] = m.WorktreePath
	}
	if len(gone) > 0 {
		_, err := t.Update(ctx, o.Lock, func(c *team.Config) error {
			for _, n := range gone {
				c.RemoveMember(n)
			}
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("panes closed but config.json not updated: %w", err)
		}
	}
	var errs []error
	for i := range out {
		name := out[i].Name
		if _, ok := worktrees[name]; !ok {
			continue
		}
		out[i].Removed = true
		o.forget(t, name)
		released, err := team.ReleaseTasks(ctx, t, o.Lock, name)
		out[i].ReleasedTasks = released
		if err != nil {
			errs = append(errs, fmt.Errorf("release %s's tasks: %w", name, err))
		}
		out[i].Worktree = o.removeWorktree(ctx, t, name, worktrees[name], false)
	}
	return out, errors.Join(errs...)
}

// forget removes what paneteam kept for a departed teammate in its state
// folder: its signing key, if paneteam made one (it signed for a process
// that is gone), and its launch record (it names a pane that is gone).
func (o Options) forget(t team.Team, name string) {
	if o.Backend.Getenv == nil {
		return
	}
	if st, err := provenance.DefaultStore(o.Backend.Getenv); err == nil {
		st.Forget(t.InboxPath(name))
	}
	if state, err := provenance.StateDir(o.Backend.Getenv); err == nil {
		launches.Open(state).Forget(t.Root, t.Name, name) //nolint:errcheck // best effort: a stale record names a pane that is gone
	}
}
