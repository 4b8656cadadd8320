package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// DefaultClaudeGrace is how long a team whose Claude Code lead is gone is
// kept after its last change, so that 'claude --resume' still finds its
// tasks.
const DefaultClaudeGrace = time.Hour

// claudeGrace is the grace period ro asks for Claude Code's teams.
func (ro ReapOptions) claudeGrace() time.Duration { return grace(ro.ClaudeGrace, DefaultClaudeGrace) }

// grace is a grace period as asked: 0 (not given) is def, a negative one
// (the flag's 0, "reap now") none.
func grace(asked, def time.Duration) time.Duration {
	switch {
	case asked < 0:
		return 0
	case asked == 0:
		return def
	}
	return asked
}

// reapClaudeTeam reaps a team led by Claude Code (chosen by its
// leadProcess, never by its name) whose lead is provably dead by Claude
// Code's own take-over test (team.LeadProcess.Judge), once its grace period
// has passed. The decision is taken again under config.json.lock, and
// stands only if leadProcess still has the same pid and claimedAt: a
// Claude Code that resumed the session in between has re-claimed it.
// Then, still under the lock, the panes paneteam made for the team are
// closed (never Claude Code's own), and the team and task folders are
// deleted as Claude Code deletes them at exit.
func (o Options) reapClaudeTeam(ctx context.Context, t team.Team, cfg *team.Config, lead team.Lead, ro ReapOptions, res *ReapResult) {
	skip := func(why string) { res.Skipped = append(res.Skipped, Skipped{Team: t.Name, Why: why}) }
	if lead.State != team.LeadDead {
		skip(lead.Why + ": left alone")
		return
	}
	if grace := ro.claudeGrace(); grace > 0 {
		if last := lastChange(t); ro.Now().Sub(last) < grace {
			skip(fmt.Sprintf("%s, but the team changed %s ago (kept %s for 'claude --resume'; --older-than sets it)",
				lead.Why, ro.Now().Sub(last).Round(time.Second), grace))
			return
		}
	}
	if why := o.claudePanesRunning(ctx, cfg, lead); why != "" {
		skip(lead.Why + ", but " + why + ": left alone")
		return
	}
	if ro.DryRun {
		cr, _ := o.teardown(ctx, t, cfg, true, stopsServer(cfg), nil)
		res.Orphans = append(res.Orphans, Orphan{CleanupResult: cr, Why: lead.Why})
		return
	}
	unlock, err := lockfile.Lock(ctx, t.ConfigPath(), o.Lock)
	if err != nil {
		res.Orphans = append(res.Orphans, Orphan{CleanupResult: &CleanupResult{Team: t.Name, Members: []Departure{}}, Why: lead.Why, Error: err.Error()})
		return
	}
	// The folder holding the lock is renamed and removed below: releasing
	// then finds nothing to release, which is no error here.
	defer unlock()
	now, err := team.Load(t.ConfigPath())
	if err != nil {
		skip(fmt.Sprintf("could not read it again under its lock: %v", err))
		return
	}
	lp, ok := now.LeadProcess()
	if !ok || lp.PID != lead.Process.PID || lp.ClaimedAt != lead.Process.ClaimedAt {
		skip("its Claude Code lead changed while cleanup looked (a session resumed it): left alone")
		return
	}
	if again := lp.Judge(); again.State != team.LeadDead {
		skip(again.Why + ": left alone")
		return
	}
	cr, err := o.teardown(ctx, t, now, false, stopsServer(now), func() error { return deleteLikeClaude(t) })
	orph := Orphan{CleanupResult: cr, Why: lead.Why}
	if err != nil {
		orph.Error = err.Error()
	}
	res.Orphans = append(res.Orphans, orph)
}

// claudePanesRunning says why the team must stay while any teammate its
// Claude Code lead started in a pane may still run: a pane teammate can
// outlive its lead, and deleting the team and task folders under it would
// lose its work. Only a pane found running keeps the team: one on a
// server paneteam cannot see (from cron, Claude's own tmux is unknown) is
// covered by the grace period instead, since a working pane teammate
// writes to the team folder at every turn's end (its idle notification).
// ("" when none is seen running.)
func (o Options) claudePanesRunning(ctx context.Context, cfg *team.Config, lead team.Lead) string {
	for i := range cfg.Members {
		m := &cfg.Members[i]
		if cfg.RunBy(m) != team.RunByClaudePane {
			continue
		}
		if state, _ := teamfind.ClaudePaneState(ctx, lead, m, o.getenv); state == teamfind.PaneAlive {
			return fmt.Sprintf("Claude's pane teammate %s still runs in pane %s", m.Name, m.TmuxPaneID)
		}
	}
	return ""
}

func stopsServer(cfg *team.Config) bool { return cfg.Paneteam != nil && cfg.Paneteam.TmuxPrivate }

// deleteLikeClaude deletes a team as Claude Code does
// (docs/PROTOCOL.md §3 "Deletion"): teams/<team> is renamed to
// <team>.deleted-<suffix> first, so that nothing finds a half-deleted
// team under its name, then removed; then the task folder.
func deleteLikeClaude(t team.Team) error {
	gone := t.Dir() + ".deleted-paneteam-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	if err := os.Rename(t.Dir(), gone); err != nil {
		return fmt.Errorf("delete team %s: %w", t.Name, err)
	}
	var errs []error
	for _, d := range []string{gone, filepath.Dir(t.InboxDir()), t.TasksDir()} {
		if !within(t.Root, d) {
			errs = append(errs, fmt.Errorf("refusing to delete %s: not under %s", d, t.Root))
			continue
		}
		if err := os.RemoveAll(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("delete team %s: %w", t.Name, err))
		}
	}
	return errors.Join(errs...)
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

// lastChange is the newest change to the team's config, inboxes and
// tasks.
func lastChange(t team.Team) time.Time {
	last := lastActivity(t)
	entries, _ := os.ReadDir(t.TasksDir())
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.ModTime().After(last) {
			last = fi.ModTime()
		}
	}
	if fi, err := os.Stat(t.TasksDir()); err == nil && fi.ModTime().After(last) {
		last = fi.ModTime()
	}
	return last
}
