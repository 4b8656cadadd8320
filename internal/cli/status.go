package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/protocol/approval"
	"github.com/paneteam/paneteam/internal/protocol/leadinbox"
	"github.com/paneteam/paneteam/internal/term/termtext"
	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// aliveTimeout bounds one liveness check, so a hung tmux or it2 cannot
// freeze a status line.
const aliveTimeout = 3 * time.Second

// Pane liveness as status reports it.
const (
	paneAlive   = teamfind.PaneAlive
	paneDead    = teamfind.PaneDead
	paneUnknown = teamfind.PaneUnknown
)

func statusCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "status",
		Usage: "show teams, their members, who is busy or idle, and unread messages",
		Description: `Lists every team under the root (or only --team): who leads it (a Claude
Code session, by config.json's leadProcess, or paneteam) and whether that
lead process is alive (for Claude Code, by Claude Code's own test: a lead
that cannot be proven dead counts as alive); then each member: who runs it
(Claude Code in its own process, Claude Code in a pane, or paneteam), its
backend, whether it is active or idle (config.json's isActive), whether its
pane or process still runs, and how many unread messages wait in its inbox.
A Claude Code teammate's pane is looked for on Claude's tmux server (from
the lead's environment, else $TMUX).

    paneteam status
    paneteam status --team review --json

A member with a permission, sandbox or plan request waiting for the lead
shows as NEEDS YOU (with how many): 'paneteam requests' lists them,
'paneteam approve' and 'deny' answer them.

--format tmux prints one short segment per team for tmux's status line:
name, busy and idle counts, dead panes, "!N need you" when requests wait
for you, and the lead's unread messages.

    set -g status-right '#(paneteam status --format tmux)'
    set -g status-interval 5

--format iterm2 sets the iTerm2 user variable paneteam_needs of the session
it prints in to "!N need you" (or to nothing) for a badge or status bar:
run it from your shell prompt (examples/iterm2/README.md).`,
		Flags: []ucli.Flag{
			teamFlag(),
			jsonFlag(),
			&ucli.StringFlag{Name: "format", Usage: "text; tmux for a status-line segment; iterm2 to set the lead's badge", Value: "text"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.NArg() > 0 {
				return usagef("status takes no arguments (got %q): name a team with --team", c.Args().First())
			}
			format := c.String("format")
			if format != "text" && format != "tmux" && format != "iterm2" {
				return usagef("--format %q: use text, tmux or iterm2", format)
			}
			teams, err := loadTeams(ctx, c, env)
			if err != nil {
				return err
			}
			bend := statusBackendEnv(env)
			if format == "tmux" && !c.Bool("json") {
				return writeTmuxStatus(env.Stdout, tmuxStatusOf(ctx, bend, teams)) // statusline.go
			}
			if format == "iterm2" && !c.Bool("json") {
				return writeITerm2Status(env.Stdout, teams)
			}
			var out []teamStatus
			for _, tl := range teams {
				out = append(out, statusOf(ctx, bend, tl))
			}
			switch {
			case c.Bool("json"):
				if out == nil {
					out = []teamStatus{}
				}
				return printJSON(env.Stdout, out)
			}
			return writeStatus(env, out)
		},
	}
}

type loadedTeam struct {
	team team.Team
	cfg  *team.Config
	err  error
}

// loadTeams opens --team, or every team under the root; a team whose
// config does not parse is reported, not fatal.
func loadTeams(ctx context.Context, c *ucli.Command, env Env) ([]loadedTeam, error) {
	if c.String("team") != "" {
		t, cfg, err := openTeam(ctx, c, env)
		if err != nil {
			return nil, err
		}
		return []loadedTeam{{team: t, cfg: cfg}}, nil
	}
	root, err := rootOf(c, env)
	if err != nil {
		return nil, err
	}
	names, err := team.List(root)
	if err != nil {
		return nil, err
	}
	var out []loadedTeam
	for _, n := range names {
		t, cfg, err := team.Open(root, n)
		if err != nil {
			t = team.Team{Root: root, Name: n}
		}
		out = append(out, loadedTeam{team: t, cfg: cfg, err: err})
	}
	return out, nil
}

type teamStatus struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Backend     string `json:"backend,omitempty"`
	// Lead is who leads the team (Claude Code or paneteam) and whether
	// that process is alive (Claude Code's own test for a Claude lead).
	Lead *team.Lead `json:"lead,omitempty"`
	// LeadInbox is set when a live Claude Code lead has messages waiting
	// that it will not read until it has a teammate of its own.
	LeadInbox *leadinbox.Waiting `json:"leadInbox,omitempty"`
	Members   []memberStatus     `json:"members"`
	Error     string             `json:"error,omitempty"`
}

type memberStatus struct {
	Name      string `json:"name"`
	AgentID   string `json:"agentId"`
	AgentType string `json:"agentType,omitempty"`
	Color     string `json:"color,omitempty"`
	Backend   string `json:"backend,omitempty"`
	PaneID    string `json:"paneId,omitempty"`
	// RunBy is who runs the member: lead, claude-in-process, claude-pane,
	// paneteam or unknown (team.Config.RunBy).
	RunBy  string `json:"runBy"`
	Active bool   `json:"active"`
	// Pane is alive, dead or unknown (could not be told): the member's
	// pane, or for the lead and Claude Code's in-process teammates, the
	// lead's process.
	Pane      string `json:"pane"`
	PaneError string `json:"paneError,omitempty"`
	Unread    int    `json:"unread"`
	// InboxError says why Unread could not be counted.
	InboxError string `json:"inboxError,omitempty"`
	// Waiting counts the member's permission, sandbox and plan requests
	// waiting for the lead (approval): above 0 the member needs you.
	Waiting  int  `json:"waiting"`
	NeedsYou bool `json:"needsYou"`
}

func statusOf(ctx context.Context, bend backend.Env, tl loadedTeam) teamStatus {
	ts := teamStatus{Name: tl.team.Name, Members: []memberStatus{}}
	if tl.err != nil {
		ts.Error = tl.err.Error()
		return ts
	}
	cfg := tl.cfg
	ts.Description = cfg.Description
	if cfg.Paneteam != nil {
		ts.Backend = cfg.Paneteam.Backend
	}
	lead := team.LeadOf(cfg)
	ts.Lead = &lead
	if w, err := leadinbox.Check(tl.team, cfg, lead, time.Now()); err == nil && w.Unpolled {
		ts.LeadInbox = &w
	}
	waiting := waitingPerMember(tl.team, cfg)
	for i := range cfg.Members {
		ms := memberStatusOf(ctx, bend, tl.team, cfg, lead, &cfg.Members[i])
		ms.Waiting = waiting[ms.Name]
		ms.NeedsYou = ms.Waiting > 0
		ts.Members = append(ts.Members, ms)
	}
	return ts
}

// waitingPerMember counts the requests waiting for the lead per member
// name; a team whose requests cannot be read counts none (status still
// shows everything else).
func waitingPerMember(t team.Team, cfg *team.Config) map[string]int {
	l, err := approval.Find(t, cfg)
	if err != nil {
		return nil
	}
	return approval.PerTeammate(l.Waiting())
}

// memberStatusOf is everything status says about one member; a new
// per-member state belongs here.
func memberStatusOf(ctx context.Context, bend backend.Env, t team.Team, cfg *team.Config, lead team.Lead, m *team.Member) memberStatus {
	ms := memberStatus{Name: m.Name, AgentID: m.AgentID, AgentType: m.AgentType, Color: m.Color,
		Backend: m.BackendType, PaneID: m.TmuxPaneID, RunBy: cfg.RunBy(m), Active: m.Active()}
	ms.Pane, ms.PaneError = liveness(ctx, bend, cfg, lead, m, ms.RunBy)
	if unread, err := leadinbox.Open(t, cfg, m.Name, lockfile.Options{}).Unread(); err != nil {
		ms.Unread, ms.InboxError = -1, err.Error()
	} else {
		ms.Unread = len(unread)
	}
	return ms
}

// liveness says whether the member runs. The lead and Claude Code's
// in-process teammates live in the lead's process; Claude Code's pane
// teammates are looked for on Claude's tmux server; paneteam's members
// are asked of the backend that started them.
func liveness(ctx context.Context, bend backend.Env, cfg *team.Config, lead team.Lead, m *team.Member, runBy string) (string, string) {
	switch {
	case runBy == team.RunByLead || runBy == team.RunByClaudeInProcess:
		switch lead.State {
		case team.LeadAlive:
			return paneAlive, ""
		case team.LeadDead:
			return paneDead, ""
		}
		return paneUnknown, "the lead's process was not recorded"
	case runBy == team.RunByClaudePane && m.BackendType != team.BackendITerm2:
		ctx, cancel := context.WithTimeout(ctx, aliveTimeout)
		defer cancel()
		return teamfind.ClaudePaneState(ctx, lead, m, bend.Getenv)
	case runBy == team.RunByClaudePane:
		return paneUnknown, "an iTerm2 pane Claude Code started: paneteam cannot see it"
	}
	b, err := backend.ForMember(bend, cfg, m)
	if err != nil {
		return paneUnknown, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, aliveTimeout)
	defer cancel()
	alive, err := b.Alive(ctx, cfg, m)
	switch {
	case err != nil:
		return paneUnknown, err.Error()
	case alive:
		return paneAlive, ""
	}
	return paneDead, ""
}

// statusBackendEnv is the backend environment of a read-only command:
// nothing to announce.
func statusBackendEnv(env Env) backend.Env {
	b := backendEnv(env)
	b.Warn = func(string, ...any) {} // status reports; it starts nothing
	return b
}

func writeStatus(env Env, teams []teamStatus) error {
	if len(teams) == 0 {
		fmt.Fprintln(env.Stdout, "no teams; create one with: paneteam team-create NAME")
		return nil
	}
	for i, ts := range teams {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		// Names, backends and descriptions are in config.json, which any
		// member can write: shown, never interpreted (termtext.Visible).
		head := termtext.Visible(ts.Name)
		if ts.Backend != "" {
			head += " (" + termtext.Visible(ts.Backend) + ")"
		}
		if ts.Description != "" {
			head += ": " + termtext.Visible(ts.Description)
		}
		fmt.Fprintln(env.Stdout, head)
		if ts.Error != "" {
			fmt.Fprintf(env.Stdout, "  cannot read this team: %s\n", ts.Error)
			continue
		}
		if ts.Lead != nil {
			fmt.Fprintf(env.Stdout, "  lead: %s\n", leadLine(*ts.Lead))
		}
		if w := ts.LeadInbox; w != nil {
			fmt.Fprintf(env.Stdout, "  note: %d message(s) to team-lead unread: %s\n", w.Unread, leadinbox.Note)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NAME\tRUN BY\tSTATE\tBACKEND\tPANE\tUNREAD")
		for _, m := range ts.Members {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", termtext.Visible(m.Name), runByWord(m.RunBy), stateWord(m),
				termtext.Visible(orDefault(m.Backend, "-")), termtext.Visible(paneWord(m)), unreadWord(m))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// leadLine says who leads and whether that process runs.
func leadLine(l team.Lead) string {
	who := map[string]string{team.LedByClaude: "Claude Code", team.LedByPaneteam: "paneteam"}[l.By]
	if who == "" {
		return "unknown (" + l.Why + ")"
	}
	line := fmt.Sprintf("%s, process %d, %s", who, l.PID, l.State)
	if l.OtherPIDSpace {
		line += " (in another pid namespace: cannot be proven dead)"
	}
	return line
}

func runByWord(r string) string {
	switch r {
	case team.RunByClaudeInProcess:
		return "claude (in-process)"
	case team.RunByClaudePane:
		return "claude (pane)"
	case team.RunByLead:
		return "lead"
	}
	return r
}

// stateWord is a member's state; "NEEDS YOU" (in capitals, read without
// colour) when it waits for the lead's answer: 'paneteam requests' lists
// what it asks.
func stateWord(m memberStatus) string {
	switch {
	case m.NeedsYou:
		return fmt.Sprintf("NEEDS YOU (%d)", m.Waiting)
	case m.Active:
		return "active"
	}
	return "idle"
}

func paneWord(m memberStatus) string {
	if m.PaneID == "" || m.PaneID == team.InProcessPaneID {
		return m.Pane
	}
	return m.PaneID + " " + m.Pane
}

func unreadWord(m memberStatus) string {
	if m.Unread < 0 {
		return "?"
	}
	return fmt.Sprint(m.Unread)
}

// writeTmuxStatus prints "name ▶busy ⏸idle ✗dead !N need you ✉unread" per
// team, N the requests waiting for the lead's answer, the unread count the
// lead's (the person at the keyboard), highlighted
// with tmux's #[...] style syntax (tmux(1), STYLES) when there is mail.
func writeTmuxStatus(w io.Writer, teams []teamStatus) error {
	var segs []string
	for _, ts := range teams {
		busy, idle, dead, mail, waiting := 0, 0, 0, 0, 0
		for _, m := range ts.Members {
			if m.Name == team.LeadName {
				mail = max(m.Unread, 0)
				continue
			}
			waiting += m.Waiting
			if m.Active {
				busy++
			} else {
				idle++
			}
			if m.Pane == paneDead {
				dead++
			}
		}
		seg := fmt.Sprintf("%s ▶%d ⏸%d", tmuxEscape(ts.Name), busy, idle)
		if ts.Error != "" {
			seg = tmuxEscape(ts.Name) + " ?"
		}
		if dead > 0 {
			seg += fmt.Sprintf(" #[fg=red]✗%d#[default]", dead)
		}
		if waiting > 0 {
			seg += fmt.Sprintf(" #[fg=red,bold,reverse]!%d need you#[default]", waiting)
		}
		if mail > 0 {
			seg += fmt.Sprintf(" #[fg=yellow,bold]✉%d#[default]", mail)
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return nil
	}
	_, err := fmt.Fprintln(w, strings.Join(segs, "  "))
	return err
}

// writeITerm2Status sets the iTerm2 user variable paneteam_needs to "!N
// need you", N the requests waiting for the lead in every team listed, or
// to nothing. Only the count is printed, as base64 in the escape sequence.
func writeITerm2Status(w io.Writer, teams []loadedTeam) error {
	n := 0
	for _, tl := range teams {
		if tl.err != nil {
			continue
		}
		for _, c := range waitingPerMember(tl.team, tl.cfg) {
			n += c
		}
	}
	v := ""
	if n > 0 {
		v = fmt.Sprintf("!%d need you", n)
	}
	_, err := io.WriteString(w, iterm2.SetUserVar(iterm2.NeedsVar, v))
	return err
}

// tmuxEscape doubles '#', which starts a format or style in a status line.
func tmuxEscape(s string) string { return strings.ReplaceAll(s, "#", "##") }
