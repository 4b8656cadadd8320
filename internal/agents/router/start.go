package router

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// Pane is one run of the router, in the pane of a teammate Claude
// Code's lead started: the link Claude ran (argv[0]), the teammate
// flags it gave, and the pane's world.
type Pane struct {
	Link string
	Args []string
	// Vars is the pane's environment. It is not changed: Start.Vars is
	// the one the teammate's program gets.
	Vars map[string]string
	// Warn says a line in the pane (a setting left out, a worktree not
	// made, a launch not recorded); nil says nothing.
	Warn func(format string, args ...any)
	// NewID makes a session id for a Claude teammate given none
	// (mailbox.NewMsgID when nil).
	NewID func() string
}

// Start is what the router decided the teammate runs: Claude (or the
// person's own teammate program) or an agent CLI, exactly one of them.
// The member row, the launch record and a worktree are already done.
type Start struct {
	// Vars is the environment the teammate runs with: the pane's, with
	// PANETEAM_STATE_DIR (the folder of the router's link) and, in a
	// worktree, PWD.
	Vars   map[string]string
	Config Config
	Claude *ClaudeStart
	Agent  *AgentStart
}

// ClaudeStart is a Claude teammate: run Argv as it is, held to a budget
// when its team has one (or Budget is above 0); Team is nil when the
// team could not be read, and then nothing holds it.
type ClaudeStart struct {
	Argv   []string // Argv[0] is the program
	Team   *team.Team
	Name   string
	Budget float64
}

// AgentStart is an agent CLI run as the member Claude's lead wrote in:
// Profile's CLI with Plan's settings, Prompt first (a worktree's note;
// "" for none), obeying only what the lead signed with LeadVerifyKey.
type AgentStart struct {
	Team          team.Team
	Name          string
	Profile       string
	Prompt        string
	Plan          Plan
	LeadVerifyKey string
	Budget        float64
}

// NotStartedError is a teammate the router did not start; Claude's lead
// was told why in the teammate's name, and Text says so in the pane.
type NotStartedError struct{ Text string }

func (e *NotStartedError) Error() string { return e.Text }

// Route decides what the teammate of p runs and does what must be done
// before it starts: a routed member's row is marked as paneteam's
// (Routes), a worktree given ('paneteam claude --worktree'), a resumed
// lead's teammate sent back to its earlier session, the launch recorded.
// A teammate of an offered type that cannot start is a
// *NotStartedError.
func Route(ctx context.Context, p Pane) (Start, error) {
	rc, err := Load(p.Link)
	if err != nil {
		return Start{}, err
	}
	r := &run{pane: p, rc: rc, vars: with(p.Vars, "PANETEAM_STATE_DIR", StateDir(p.Link))}
	// Claude gives the pane none of paneteam's variables: the state
	// folder is the one the router's link is in, for every record this
	// teammate's launch writes, whatever the pane inherited.
	tm, perr := ParseClaudeArgs(p.Args)
	if !rc.Routes(tm.AgentType) {
		args := p.Args
		if told := r.worktree(ctx, tm); told != "" {
			args = append(args, "--append-system-prompt", told)
		}
		c := r.claude(tm, args)
		return Start{Vars: r.vars, Config: rc, Claude: &c}, nil
	}
	a, err := r.agent(ctx, tm, perr)
	if err != nil {
		return Start{}, err
	}
	return Start{Vars: r.vars, Config: rc, Agent: &a}, nil
}

// run is one Route: the teammate's environment as it grows, and its team
// opened once.
type run struct {
	pane Pane
	rc   Config
	vars map[string]string

	opened bool
	t      team.Team
	cfg    *team.Config
	terr   error
}

func (r *run) getenv(k string) string { return r.vars[k] }

func (r *run) warn(format string, args ...any) {
	if r.pane.Warn != nil {
		r.pane.Warn(format, args...)
	}
}

// team is the teammate's team (name) under the root the pane's
// environment names, opened on first use.
func (r *run) team(name string) (team.Team, *team.Config, error) {
	if !r.opened {
		r.opened = true
		root, err := team.Root("", r.getenv)
		if err == nil {
			r.t, r.cfg, err = team.Open(root, name)
		}
		r.terr = err
	}
	return r.t, r.cfg, r.terr
}

// agent is the agent CLI teammate tm runs as, once its member row says
// so; perr is what parsing Claude's flags found wrong.
func (r *run) agent(ctx context.Context, tm Teammate, perr error) (AgentStart, error) {
	if perr != nil {
		return AgentStart{}, r.refuse(ctx, tm, tm.AgentType, perr)
	}
	p, err := profile.Find(tm.AgentType, r.getenv)
	if err != nil {
		return AgentStart{}, r.refuse(ctx, tm, tm.AgentType, err)
	}
	plan, err := Map(tm, p)
	if err != nil {
		return AgentStart{}, r.refuse(ctx, tm, p.Title, err)
	}
	if _, err := provenance.NewVerifier(tm.LeadVerifyKey); err != nil {
		return AgentStart{}, r.refuse(ctx, tm, p.Title, fmt.Errorf("--lead-verify-key (or %s): %v", provenance.EnvLeadVerifyKey, err))
	}
	prog, err := p.Locate(r.getenv("PATH"))
	if err != nil {
		return AgentStart{}, r.refuse(ctx, tm, p.Title, err)
	}
	t, err := r.routedMember(ctx, tm, p)
	if err != nil {
		return AgentStart{}, r.refuse(ctx, tm, p.Title, err)
	}
	for _, n := range plan.Notes {
		r.warn("%s", n)
	}
	prompt := ""
	if told := r.worktree(ctx, tm); told != "" {
		// The lead's prompt is in the inbox; this comes first.
		prompt = told + "\n\nStart by calling read_inbox."
	}
	cwd, _ := os.Getwd()
	r.record(t, tm, p.Name, prog, cwd, "", agentrun.Home(t, tm.Name))
	return AgentStart{Team: t, Name: tm.Name, Profile: p.Name, Prompt: prompt, Plan: plan, LeadVerifyKey: tm.LeadVerifyKey, Budget: r.rc.Budget}, nil
}

// claude is the Claude teammate tm runs as, with Claude's flags args, as
// it would have run without paneteam: given a session id when it has
// none, or the earlier session of a resumed lead's teammate coming back;
// its launch recorded.
func (r *run) claude(tm Teammate, args []string) ClaudeStart {
	if r.rc.Resumed {
		args = r.comeback(tm, args)
	}
	newID := r.pane.NewID
	if newID == nil {
		newID = mailbox.NewMsgID
	}
	args, session := ClaudeArgs(args, newID)
	c := ClaudeStart{Argv: append([]string{r.rc.Claude}, args...), Name: tm.Name, Budget: r.rc.Budget}
	if tm.Team != "" && tm.Name != "" {
		if t, _, err := r.team(tm.Team); err == nil {
			cwd, _ := os.Getwd()
			r.record(t, tm, "claude", r.rc.Claude, cwd, session, spawn.ClaudeConfigDir(r.getenv), args...)
			c.Team = &t
		}
	}
	if c.Team == nil && r.rc.Budget > 0 {
		r.warn("%s runs without its budget: its team %s could not be read", tm.Name, tm.Team)
	}
	return c
}

// routedMember marks Claude's member as one paneteam runs for Claude's
// lead, running p's CLI.
func (r *run) routedMember(ctx context.Context, tm Teammate, p *profile.Profile) (team.Team, error) {
	t, _, err := r.team(tm.Team)
	if err != nil {
		return team.Team{}, err
	}
	cfg, err := t.Update(ctx, lockfile.Options{}, func(cfg *team.Config) error {
		m := cfg.Member(tm.Name)
		if m == nil {
			return fmt.Errorf("%s is not a member of team %s: Claude's lead writes its teammates in before it starts them", tm.Name, tm.Team)
		}
		if m.Paneteam == nil {
			m.Paneteam = &team.MemberMeta{}
		}
		m.Paneteam.CLI, m.Paneteam.Routed = p.Name, true
		return nil
	})
	if err == nil {
		r.cfg = cfg
	}
	return t, err
}

// record keeps the teammate's launch in paneteam's state folder; a
// failure is a warning, never a failed start.
func (r *run) record(t team.Team, tm Teammate, cli, prog, cwd, session, configDir string, args ...string) {
	state, err := provenance.StateDir(r.getenv)
	if err != nil {
		r.warn("could not record %s's launch: %v", tm.Name, err)
		return
	}
	rec := launches.Record{Root: t.Root, Team: t.Name, Agent: tm.Name, CLI: cli, Via: launches.ViaRouter,
		Program: prog, Args: args, Cwd: cwd, SessionID: session, ConfigDir: configDir, ParentSessionID: tm.ParentSessionID,
		Pane: r.getenv("TMUX_PANE"), PID: os.Getpid()}
	// The process and server resume judges liveness by (launches.Record.
	// Running): this one, which execs the teammate, and the tmux it runs in.
	if start, err := proc.StartTime(rec.PID); err == nil {
		rec.PIDStart = start
	}
	if srv, err := tmux.FromTMUX(r.getenv("TMUX")); err == nil {
		rec.TmuxSocket = srv.Socket
	}
	if r.cfg != nil {
		if m := r.cfg.Member(tm.Name); m != nil {
			rec.Backend = m.BackendType
			if m.TmuxPaneID != "" {
				rec.Pane = m.TmuxPaneID
			}
		}
	}
	if err := launches.Open(state).Write(rec); err != nil {
		r.warn("could not record %s's launch: %v", tm.Name, err)
	}
}

// refuse tells Claude's lead, in the teammate's name, why the teammate
// it asked for did not start (what: as which CLI), and returns the
// *NotStartedError that says so in the pane.
func (r *run) refuse(ctx context.Context, tm Teammate, what string, why error) error {
	text := fmt.Sprintf("%s did not start as %s: %v", tm.Name, what, why)
	if tm.Team != "" && tm.Name != "" {
		if t, cfg, err := r.team(tm.Team); err == nil {
			// An entry of the teammate's own in the lead's inbox, in the
			// colour Claude gave it.
			p := post.As(t, cfg, lockfile.Options{}, tm.Name)
			if tm.Color != "" {
				p.Color = tm.Color
			}
			if _, err := p.SendLead(ctx, mailbox.Message{Text: text, Summary: "could not start"}); err != nil {
				r.warn("could not tell the lead: %v", err)
			}
		}
	}
	return &NotStartedError{Text: text}
}

// with is vars with k set to v (a copy).
func with(vars map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(vars)+1)
	for kk, vv := range vars {
		out[kk] = vv
	}
	out[k] = v
	return out
}

// comeback is args with --resume of the earlier session of this name's
// teammate, when the resumed lead that starts it had one that can go on
// (Resume); else args, and a line in the pane saying why not.
func (r *run) comeback(tm Teammate, args []string) []string {
	state, err := provenance.StateDir(r.getenv)
	if err != nil {
		return args
	}
	root, err := team.Root("", r.getenv)
	if err != nil {
		return args
	}
	cwd, _ := os.Getwd()
	var since time.Time
	if _, cfg, err := r.team(tm.Team); err == nil {
		if lp, ok := cfg.LeadProcess(); ok {
			since = time.UnixMilli(int64(lp.ClaimedAt))
		}
	}
	rec := launches.Open(state).OfLead(root, tm.ParentSessionID, tm.Name)
	c := Resume(args, rec, cwd, root, since, func(pid int) bool { return proc.Alive(pid, "") })
	if c.Session == "" {
		if c.Why != "" {
			r.warn("%s starts fresh: %s", tm.Name, c.Why)
		}
		return args
	}
	r.warn("%s goes on with its earlier conversation (session %s)", tm.Name, c.Session)
	return append(slices.Clone(args), "--resume", c.Session)
}
