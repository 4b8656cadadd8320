package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/flockwait"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
)

// ReapOptions tunes Reap.
type ReapOptions struct {
	// DryRun reports the plan and changes nothing.
	DryRun bool
	// OlderThan spares teams active (config or an inbox written) and
	// servers started within this long.
	OlderThan time.Duration
	// ClaudeGrace spares a team whose Claude Code lead is gone for this
	// long after its last change (0: DefaultClaudeGrace; negative: none).
	ClaudeGrace time.Duration
	// ResumeGrace spares a team paneteam led that can come back ('paneteam
	// resume': its lead and panes died without a shutdown) for this long
	// after its last change (0: DefaultResumeGrace; negative: none).
	ResumeGrace time.Duration
	// SocketDir is tmux's socket folder to scan (default SocketDir).
	SocketDir string
	// VirtualDir holds the tmux servers paneteam plays for Claude Code
	// leads in other terminals (kitty, WezTerm, Zellij, iTerm2), one
	// folder each ("": none are looked at).
	VirtualDir string
	Now        func() time.Time
}

// ReapResult is what Reap found and did.
type ReapResult struct {
	DryRun bool `json:"dryRun"`
	// Orphans are the teams whose lead is gone.
	Orphans []Orphan `json:"orphans"`
	// Servers are the private tmux servers of gone leads.
	Servers []*Server `json:"servers"`
	// Skipped are teams left alone, with the reason.
	Skipped []Skipped `json:"skipped"`
	// StaleLocks are paneteam's pane locks whose server is gone
	// (sweepLocks).
	StaleLocks []string `json:"staleLocks"`
	// Panes are panes paneteam made for teams whose folder is gone.
	Panes []*LeftPane `json:"panes"`
	// Records are paneteam's records of panes it opened in kitty,
	// WezTerm or Zellij that are gone (backend.PruneNativeRecords).
	Records []string `json:"records"`
	// Worktrees are the untouched worktrees of ended teammates removed
	// after the reap (sweepWorktrees).
	Worktrees []SweptWorktree `json:"worktrees,omitempty"`
}

// Orphan is a team whose lead process is gone.
type Orphan struct {
	*CleanupResult
	Why   string `json:"why"`
	Error string `json:"error,omitempty"`
}

// Skipped is a team Reap did not touch.
type Skipped struct {
	Team string `json:"team"`
	Why  string `json:"why"`
}

// LockName is the file, under the team root, whose flock serialises
// cleanups: two cron runs (or a cron run and 'cleanup --team') take turns
// instead of fighting over the same panes and folders.
const LockName = ".paneteam-cleanup.flock"

// Reap cleans up after leads that are gone: every team under root whose
// recorded lead process is dead (or whose pid now names another process)
// is torn down as Cleanup with Force would (panes closed, private server
// stopped, clean worktrees removed, folders deleted; a worktree with work
// keeps it and its team), then the private tmux servers of gone leads are
// stopped: Claude Code's claude-swarm-<pid>, and paneteam-<pid>-<team>-<hash> when every
// pane on it is paneteam's. A team led by Claude Code (by its
// leadProcess) is reaped only when its lead is provably dead by Claude
// Code's own test and its grace period has passed (reapClaudeTeam).
// Teams with a live lead, a lead in another pid namespace, or no recorded
// lead are never touched. Reap is idempotent and safe to run from cron.
func (o Options) Reap(ctx context.Context, root string, ro ReapOptions) (*ReapResult, error) {
	if ro.Now == nil {
		ro.Now = time.Now
	}
	if ro.SocketDir == "" {
		ro.SocketDir = SocketDir(o.getenv)
	}
	res := &ReapResult{DryRun: ro.DryRun, Orphans: []Orphan{}, Servers: []*Server{}, Skipped: []Skipped{}, Panes: []*LeftPane{}, Records: []string{}}
	unlock, err := o.lockRoot(ctx, root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var errs []error
	if err := checkSocketDir(ro.SocketDir); err != nil {
		// Nothing in it is scanned, stopped or removed.
		errs = append(errs, err)
		ro.SocketDir = ""
	}
	if err := o.reapTeams(ctx, root, ro, res); err != nil {
		errs = append(errs, err)
	}
	if err := o.reapLeftPanes(ctx, root, ro, res); err != nil {
		errs = append(errs, err)
	}
	if err := o.reapClaudeLeadPanes(ctx, ro, res); err != nil {
		errs = append(errs, err)
	}
	if err := o.reapVirtualLeadPanes(ctx, ro, res); err != nil {
		errs = append(errs, err)
	}
	// After the teardowns above, which remove the records of the panes
	// they close. A terminal that does not answer keeps its records
	// unreported: its panes may well still be open (PruneNativeRecords).
	records, err := backend.PruneNativeRecords(ctx, o.Backend, ro.DryRun)
	if err != nil {
		errs = append(errs, fmt.Errorf("prune paneteam's records of terminal panes: %w", err))
	}
	res.Records = append(res.Records, records...)
	servers, err := scanServers(ctx, ro.SocketDir, ro.OlderThan, ro.Now())
	if err != nil {
		errs = append(errs, err)
	}
	for _, s := range servers {
		switch {
		case seen(res, s.Socket):
		case strings.HasPrefix(filepath.Base(s.Socket), "paneteam-"):
			// paneteam tags every pane it makes, so a pane without the tag
			// on its server is the user's own: it keeps the server up.
			res.Servers = append(res.Servers, stopIfEmpty(ctx, s.Socket, anyAgent, s.Why, ro.DryRun))
		default:
			// Claude Code's panes carry no mark; the server's name, for a
			// process that is gone, is the proof.
			res.Servers = append(res.Servers, killServer(ctx, s, s.Why, ro.DryRun))
		}
	}
	if err := sweepLocks(ro, res); err != nil {
		errs = append(errs, err)
	}
	// Last: a worktree whose team was just reaped is free to go.
	o.sweepWorktrees(ctx, ro, res)
	for _, o := range res.Orphans {
		if o.Error != "" {
			errs = append(errs, fmt.Errorf("team %s: %s", o.Team, o.Error))
		}
	}
	for _, s := range res.Servers {
		if !s.Stopped {
			errs = append(errs, errors.New(s.Why))
		}
	}
	return res, errors.Join(errs...)
}

func (o Options) getenv(k string) string {
	if o.Backend.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Backend.Getenv(k)
}

// seen reports whether a team's teardown already handled this server.
func seen(res *ReapResult, socket string) bool {
	for _, o := range res.Orphans {
		if o.Server != nil && o.Server.Socket == socket {
			return true
		}
	}
	return false
}

func (o Options) reapTeams(ctx context.Context, root string, ro ReapOptions, res *ReapResult) error {
	names, err := team.List(root)
	if err != nil {
		return err
	}
	for _, name := range names {
		t, cfg, err := team.Open(root, name)
		if err != nil {
			res.Skipped = append(res.Skipped, Skipped{Team: name, Why: err.Error()})
			continue
		}
		if t.Dir() != filepath.Join(root, "teams", name) {
			res.Skipped = append(res.Skipped, Skipped{Team: name, Why: "its config names another team (" + cfg.Name + ")"})
			continue
		}
		if lead := team.LeadOf(cfg); lead.By == team.LedByClaude {
			o.reapClaudeTeam(ctx, t, cfg, lead, ro, res)
			continue
		}
		why, orphan := orphaned(cfg)
		if orphan && ro.OlderThan > 0 {
			if last := lastActivity(t); ro.Now().Sub(last) < ro.OlderThan {
				why, orphan = fmt.Sprintf("%s, but it was active %s ago (--older-than %s)", why, ro.Now().Sub(last).Round(time.Second), ro.OlderThan), false
			}
		}
		if orphan {
			if kept, keep := o.keepResumable(ctx, t, cfg, ro, why); keep {
				why, orphan = kept, false
			}
		}
		if !orphan {
			res.Skipped = append(res.Skipped, Skipped{Team: t.Name, Why: why})
			continue
		}
		stop := cfg.Paneteam.TmuxPrivate
		cr, err := o.teardown(ctx, t, cfg, ro.DryRun, stop, nil)
		if cr == nil {
			cr = &CleanupResult{Team: t.Name}
		}
		orph := Orphan{CleanupResult: cr, Why: why}
		if err != nil {
			orph.Error = err.Error()
		}
		res.Orphans = append(res.Orphans, orph)
	}
	return nil
}

// orphaned says whether the team's lead process is gone, and why (or why
// the team is left alone).
func orphaned(cfg *team.Config) (string, bool) {
	meta := cfg.Paneteam
	if meta == nil || meta.LeaderPID <= 0 {
		return "no lead process recorded (not started by paneteam): left alone", false
	}
	pid := meta.LeaderPID
	if !proc.Exists(pid) {
		return fmt.Sprintf("its lead process %d is gone", pid), true
	}
	if meta.LeaderStart == "" {
		return fmt.Sprintf("its lead process %d is running", pid), false
	}
	start, err := proc.StartTime(pid)
	if err != nil {
		if !proc.Exists(pid) {
			return fmt.Sprintf("its lead process %d is gone", pid), true
		}
		return fmt.Sprintf("could not check lead process %d (%v): left alone", pid, err), false
	}
	if start != meta.LeaderStart {
		return fmt.Sprintf("its lead process %d is gone (the pid now names another process)", pid), true
	}
	return fmt.Sprintf("its lead process %d is running", pid), false
}

// lastActivity is the newest change to the team's config or inboxes,
// as 'resume --all' judges a team's last day.
func lastActivity(t team.Team) time.Time { return resume.LastActive(t) }

// lockRoot takes the cleanup flock under root (waiting, bounded by the
// lock timeout). A root that does not exist has no teams: nothing to lock.
func (o Options) lockRoot(ctx context.Context, root string) (func(), error) {
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	timeout := o.Lock.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	path := filepath.Join(root, LockName)
	fl := flock.New(path)
	if err := flockwait.Lock(lctx, fl); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, &BusyError{Path: path, Held: timeout}
		}
		return nil, fmt.Errorf("take the cleanup lock %s: %w", path, err)
	}
	return func() { fl.Unlock() }, nil
}
