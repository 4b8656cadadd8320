package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/paneteam/paneteam/backend"
	"github.com/paneteam/paneteam/internal/proc"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// aliveTimeout bounds one liveness check, so a hung tmux or it2 cannot
// freeze a status line.
const aliveTimeout = 3 * time.Second

// Pane liveness as status reports it.
const (
	paneAlive   = "alive"
	paneDead    = "dead"
	paneUnknown = "unknown"
)

func statusCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "status",
		Usage: "show teams, their members, who is busy or idle, and unread messages",
		Description: `Lists every team under the root (or only --team): each member's backend,
whether it is active or idle (config.json's isActive), whether its pane still
exists, and how many unread messages wait in its inbox.

    paneteam status
    paneteam status --team review --json

--format tmux prints one short segment per team for tmux's status line:
name, busy and idle counts, dead panes, and the lead's unread messages.

    set -g status-right '#(paneteam status --format tmux)'
    set -g status-interval 5`,
		Flags: []ucli.Flag{
			teamFlag(),
			jsonFlag(),
			&ucli.StringFlag{Name: "format", Usage: "text, or tmux for a status-line segment", Value: "text"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("status takes no arguments (got %q): name a team with --team", c.Args().First())
			}
			format := c.String("format")
			if format != "text" && format != "tmux" {
				return usagef("--format %q: use text or tmux", format)
			}
			teams, err := loadTeams(c, env)
			if err != nil {
				return err
			}
			bend := statusBackendEnv(env)
			if format == "tmux" && !c.Bool("json") {
				return writeTmuxStatus(env.Stdout, tmuxStatusOf(c.Context, bend, teams)) // statusline.go
			}
			var out []teamStatus
			for _, tl := range teams {
				out = append(out, statusOf(c.Context, bend, tl))
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
func loadTeams(c *ucli.Context, env Env) ([]loadedTeam, error) {
	if c.String("team") != "" {
		t, cfg, err := openTeam(c, env)
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
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Backend     string         `json:"backend,omitempty"`
	Members     []memberStatus `json:"members"`
	Error       string         `json:"error,omitempty"`
}

type memberStatus struct {
	Name      string `json:"name"`
	AgentID   string `json:"agentId"`
	AgentType string `json:"agentType,omitempty"`
	Color     string `json:"color,omitempty"`
	Backend   string `json:"backend,omitempty"`
	PaneID    string `json:"paneId,omitempty"`
	Active    bool   `json:"active"`
	// Pane is alive, dead or unknown (the backend could not tell).
	Pane      string `json:"pane"`
	PaneError string `json:"paneError,omitempty"`
	Unread    int    `json:"unread"`
	// InboxError says why Unread could not be counted.
	InboxError string `json:"inboxError,omitempty"`
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
	for i := range cfg.Members {
		m := &cfg.Members[i]
		ms := memberStatus{Name: m.Name, AgentID: m.AgentID, AgentType: m.AgentType, Color: m.Color,
			Backend: m.BackendType, PaneID: m.TmuxPaneID, Active: m.Active()}
		ms.Pane, ms.PaneError = liveness(ctx, bend, cfg, m)
		if unread, err := mailbox.New(tl.team.InboxPath(m.Name), lockfile.Options{}).Unread(); err != nil {
			ms.Unread, ms.InboxError = -1, err.Error()
		} else {
			ms.Unread = len(unread)
		}
		ts.Members = append(ts.Members, ms)
	}
	return ts
}

// liveness asks the member's backend whether its pane exists. The lead
// has no pane of its own in config.json; its process, recorded by
// team-create, stands for it.
func liveness(ctx context.Context, bend backend.Env, cfg *team.Config, m *team.Member) (string, string) {
	if m.Name == team.LeadName && m.BackendType == "" {
		if cfg.Paneteam == nil || cfg.Paneteam.LeaderPID == 0 {
			return paneUnknown, "the lead's process was not recorded"
		}
		if proc.Alive(cfg.Paneteam.LeaderPID, cfg.Paneteam.LeaderStart) {
			return paneAlive, ""
		}
		return paneDead, ""
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
		head := ts.Name
		if ts.Backend != "" {
			head += " (" + ts.Backend + ")"
		}
		if ts.Description != "" {
			head += ": " + ts.Description
		}
		fmt.Fprintln(env.Stdout, head)
		if ts.Error != "" {
			fmt.Fprintf(env.Stdout, "  cannot read this team: %s\n", ts.Error)
			continue
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NAME\tSTATE\tBACKEND\tPANE\tUNREAD")
		for _, m := range ts.Members {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", m.Name, activeWord(m.Active), orDefault(m.Backend, "-"),
				paneWord(m), unreadWord(m))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func activeWord(active bool) string {
	if active {
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

// writeTmuxStatus prints "name ▶busy ⏸idle ✗dead ✉unread" per team, the
// unread count being the lead's (the person at the keyboard), highlighted
// with tmux's #[...] style syntax (tmux(1), STYLES) when there is mail.
func writeTmuxStatus(w io.Writer, teams []teamStatus) error {
	var segs []string
	for _, ts := range teams {
		busy, idle, dead, mail := 0, 0, 0, 0
		for _, m := range ts.Members {
			if m.Name == team.LeadName {
				mail = max(m.Unread, 0)
				continue
			}
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

// tmuxEscape doubles '#', which starts a format or style in a status line.
func tmuxEscape(s string) string { return strings.ReplaceAll(s, "#", "##") }
