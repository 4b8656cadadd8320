// Package resume brings back a team paneteam leads after its panes went
// away (the tmux server died, the terminal closed, the machine
// rebooted): every member whose pane or process is gone starts again
// from its launch record (package launches), in a pane laid out as
// before, on the same backend when it is there; members still running
// are left alone, and the tasks are not touched.
//
// What "again" means depends on what the member ran: a Claude Code
// teammate continues its own conversation (--resume with the session id
// it was started with, from the same folder, with the same name, colour
// and signing key), and starts fresh, told where its earlier
// conversation is, when that cannot be done; a wrapped program starts
// again; an agent CLI continues its own session where its profile can
// (the session its turn-end hook named), else starts a fresh one and is
// told so; a teammate
// on another host is reconnected (spawn.Reconnect). The process that
// resumes becomes the team's live lead, as team-create makes one, so
// orphan reaping sees a living team.
package resume

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// How a member came back (Started.How).
const (
	// Continued: a Claude Code teammate resumed its own conversation.
	Continued = "continued"
	// Restarted: the same command started again (a wrapped program).
	Restarted = "restarted"
	// Fresh: started again without its earlier session, and told so.
	Fresh = "fresh"
	// Reconnected: a teammate on another host, reconnected.
	Reconnected = "reconnected"
)

// ClaudeStartupCheck is how long a Claude Code teammate resumed with
// --resume, or an agent CLI continuing its session, is watched: a
// release that refuses the session exits within it, and is then started
// fresh instead.
const ClaudeStartupCheck = 3 * time.Second

// Options is one team to bring back.
type Options struct {
	Team team.Team
	Lock lockfile.Options
	// Records are the launch records (launches.Open of the state folder).
	Records    launches.Store
	BackendEnv backend.Env
	// Caller is the resuming process: its environment, its signing as
	// the lead (a notice to a member started fresh), its warnings.
	Caller post.Caller
	// Exe is this paneteam binary (a remote member's reconnection).
	Exe string
	// LeaderPID is the process that becomes the team's lead (its start
	// time is read here) when the recorded one is gone; 0 leaves the
	// lead as recorded.
	LeaderPID int
	DryRun    bool
	// StartupCheck is how long each restarted command is watched for an
	// immediate failure (0: spawn.DefaultStartupCheck's 50ms).
	StartupCheck time.Duration
	// Say receives what a reconnection tells the person.
	Say io.Writer
	// AgentSession finds the session an agent CLI teammate continues;
	// nil starts every agent CLI fresh.
	AgentSession AgentSession
}

// Result is what a resume did (or, in a dry run, would do).
type Result struct {
	Team   string `json:"team"`
	DryRun bool   `json:"dryRun"`
	// LeaderPID is the team's lead process after the resume (null: none).
	LeaderPID *int      `json:"leaderPid"`
	Started   []Started `json:"started"`
	// Running are the members still running: left alone.
	Running []string `json:"running"`
	// Left says, for each of Running, how paneteam knows it runs: its
	// recorded process, or its pane.
	Left    []Skipped `json:"runningWhy"`
	Skipped []Skipped `json:"skipped"`
}

// Started is one member started again (or to be, in a dry run).
type Started struct {
	Name string `json:"name"`
	// CLI is what it runs: "claude", an agent CLI's name, null for a
	// command of the person's.
	CLI *string `json:"cli"`
	// How: continued, restarted, fresh or reconnected.
	How     string `json:"how"`
	Backend string `json:"backend"`
	PaneID  string `json:"paneId"`
	// SessionID is the session it runs: Claude Code's, or the agent
	// CLI's it continues (null: a command, or a fresh agent CLI session
	// whose id is not known yet).
	SessionID *string `json:"sessionId"`
	// Note says what the person should know: a fallback backend, why a
	// conversation could not be continued.
	Note  string `json:"note,omitempty"`
	Error string `json:"error,omitempty"`
}

// Skipped is a member not started again, and why.
type Skipped struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Team brings o.Team back. A member that could not be started is in
// Result.Started with its Error, and the error returned names it; the
// others start anyway.
func Team(ctx context.Context, o Options) (*Result, error) {
	if !o.DryRun {
		unlock, err := o.lock(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	cfg, err := team.Load(o.Team.ConfigPath())
	if err != nil {
		return nil, err
	}
	if lead := team.LeadOf(cfg); lead.By == team.LedByClaude {
		return nil, &ClaudeTeamError{Team: o.Team.Name, Why: lead.Why}
	}
	res := &Result{Team: o.Team.Name, DryRun: o.DryRun, Started: []Started{}, Running: []string{}, Left: []Skipped{}, Skipped: []Skipped{}}
	recs, errs := o.Records.List(o.Team.Root, o.Team.Name)
	byName := map[string]launches.Record{}
	for _, r := range recs {
		byName[r.Agent] = r
	}
	census := backend.NewCensus(o.BackendEnv)
	dups := duplicates(cfg)
	seen := map[string]bool{}
	var todo []member
	for i := range cfg.Members {
		m := cfg.Members[i]
		if team.IsLeadName(cfg, m.Name) || m.AgentID == cfg.LeadAgentID {
			continue
		}
		if n := dups[m.Name]; n > 0 {
			// Two rows of one name (one written by someone else): which
			// is the teammate cannot be told from config.json, and
			// starting it from either could make two copies.
			if !seen[m.Name] {
				res.Skipped = append(res.Skipped, Skipped{Name: m.Name, Why: fmt.Sprintf("config.json holds %d other row(s) of this name "+
					"(in some spelling): left alone rather than started twice; remove the row that is not its own, then resume again", n)})
			}
			seen[m.Name] = true
			continue
		}
		rec, ok := byName[m.Name]
		var recp *launches.Record
		if ok {
			recp = &rec
		}
		v := judge(ctx, census, cfg, m, recp, ProcessGrace)
		switch {
		case v.running:
			res.Running = append(res.Running, m.Name)
			res.Left = append(res.Left, Skipped{Name: m.Name, Why: v.why})
			continue
		case v.err != nil:
			// A backend that cannot be asked (a hung tmux, a terminal out
			// of reach) may still run it.
			res.Skipped = append(res.Skipped, Skipped{Name: m.Name, Why: fmt.Sprintf("cannot tell whether its pane still runs (%v): "+
				"left alone rather than started twice", v.err)})
			continue
		}
		if !ok {
			res.Skipped = append(res.Skipped, Skipped{Name: m.Name, Why: "no launch record that paneteam believes (started by Claude Code's lead, " +
				"before paneteam kept them, or its record was refused): start it again with 'paneteam spawn-pane'"})
			continue
		}
		todo = append(todo, member{row: m, rec: rec})
	}
	// A lead still running (another shell of the person's) stays the lead.
	if !o.DryRun && o.LeaderPID > 0 && team.LeadOf(cfg).State != team.LeadAlive {
		if err := o.lead(ctx); err != nil {
			return res, err
		}
	}
	if cur, _ := team.Load(o.Team.ConfigPath()); cur != nil && cur.Paneteam != nil && cur.Paneteam.LeaderPID > 0 {
		pid := cur.Paneteam.LeaderPID
		res.LeaderPID = &pid
	}
	var failed []string
	for _, m := range todo {
		s := o.start(ctx, m)
		if s.Error != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", visible.Line(m.row.Name), s.Error))
		}
		res.Started = append(res.Started, s)
	}
	for _, e := range errs {
		failed = append(failed, e.Error())
	}
	if len(failed) > 0 {
		return res, fmt.Errorf("team %s: %w", o.Team.Name, errors.New(strings.Join(failed, "; ")))
	}
	return res, nil
}

// member is one member to start again.
type member struct {
	row team.Member
	rec launches.Record
}

// lead records o.LeaderPID as the team's lead, as team-create does.
func (o Options) lead(ctx context.Context) error {
	start, err := proc.StartTime(o.LeaderPID)
	if err != nil {
		return fmt.Errorf("the lead process %d: %w", o.LeaderPID, err)
	}
	_, err = o.Team.Update(ctx, o.Lock, func(cur *team.Config) error {
		if cur.Paneteam == nil {
			cur.Paneteam = &team.TeamMeta{}
		}
		cur.Paneteam.LeaderPID, cur.Paneteam.LeaderStart = o.LeaderPID, start
		return nil
	})
	if err != nil {
		return fmt.Errorf("make this the lead of team %s: %w", o.Team.Name, err)
	}
	return nil
}
