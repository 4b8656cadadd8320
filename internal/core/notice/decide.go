// Package notice tells the person when their team needs them: which
// changes of a team are worth a notice (a teammate needs you, finished its
// task, died; the whole team is idle; over budget), each once and not
// once per refresh, within a quiet period per team, and the senders that
// carry a notice: tmux's message line and a bell in the teammate's window,
// the terminal's own desktop notification, a command of the person's.
// It runs in whatever follows the team on the lead's side (paneteam
// monitor --notify), never in the status line, whose output tmux shows.
package notice

import (
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// Kind is what a notice is about.
type Kind string

const (
	// NeedsYou: a teammate waits on a permission, sandbox or plan request,
	// or an agent CLI asks in its own pane.
	NeedsYou Kind = "needs-you"
	// Finished: a task a teammate owned went completed.
	Finished Kind = "finished"
	// TeamIdle: every teammate is idle.
	TeamIdle Kind = "team-idle"
	// Died: a teammate's pane is gone without a shutdown (it is still a
	// member).
	Died Kind = "died"
	// OverBudget: a teammate or the team went over its budget. teamwatch
	// reports it as an event of kind OverBudgetEvent once a budget is
	// known; this package turns that event into a notice.
	OverBudget Kind = "over-budget"
)

// OverBudgetEvent is the teamwatch event kind that becomes an OverBudget
// notice, its What the notice's text.
const OverBudgetEvent = "over-budget"

// Notice is one thing to tell the person. It is also what a person's
// --exec command reads on its standard input, as JSON: the teammates'
// own text (Who, Subject) as they wrote it, Text as it may be shown.
type Notice struct {
	Time    time.Time `json:"time"`
	Kind    Kind      `json:"kind"`
	Team    string    `json:"team"`
	Who     string    `json:"who,omitempty"`
	Host    string    `json:"host,omitempty"`
	Task    string    `json:"task,omitempty"`
	Subject string    `json:"subject,omitempty"`
	// Text says it for people, every teammate's text in it made visible.
	Text string `json:"text"`
	// Pane is Who's tmux pane, where the bell rings ("" when it has none).
	Pane string `json:"pane,omitempty"`
	// More are the notices held back by the quiet period and sent with
	// this one.
	More []Notice `json:"more,omitempty"`
}

// Title heads a notice: whose team it is about.
func (n Notice) Title() string { return "paneteam " + visible.Line(n.Team) }

// Decider remembers what was told of one team, so each condition is told
// once while it lasts and again only after it ended and came back.
type Decider struct {
	told    map[string]bool
	started bool
}

// Decide returns the notices for snapshot s and the events since the
// previous one. The first call only learns the team: what was already so
// when the watch started is not news.
func (d *Decider) Decide(s *teamwatch.Snapshot, events []teamwatch.Event) []Notice {
	now := map[string]Notice{}
	var order []string
	hold := func(key string, n Notice) {
		n.Time, n.Team = s.Taken, s.Team
		now[key] = n
		order = append(order, key)
	}
	idle, teammates := 0, 0
	for _, m := range s.Members {
		if m.RunBy == team.RunByLead {
			continue
		}
		teammates++
		who := visible.Line(m.Label())
		if m.Pane == teamwatch.PaneDead {
			// Dead, whatever it was waiting on: nobody will act on it there.
			hold("died\x00"+m.Name, Notice{Kind: Died, Who: m.Name, Host: m.Host,
				Text: who + " died: its pane is gone"})
			teammates--
			continue
		}
		switch m.State {
		case teamwatch.StateNeedsYou:
			hold("needs-you\x00"+m.Name, Notice{Kind: NeedsYou, Who: m.Name, Host: m.Host, Pane: tmuxPane(m),
				Text: who + " needs you: " + why(m)})
		case teamwatch.StateGone:
			teammates--
		case teamwatch.StateIdle:
			idle++
		}
	}
	if teammates > 0 && idle == teammates {
		hold("team-idle", Notice{Kind: TeamIdle, Text: "team " + visible.Line(s.Team) + " is idle: every teammate waits for work"})
	}
	var out []Notice
	for _, k := range order {
		if d.started && !d.told[k] {
			out = append(out, now[k])
		}
	}
	d.told = map[string]bool{}
	for k := range now {
		d.told[k] = true
	}
	if !d.started {
		d.started = true
		return nil
	}
	return append(out, fromEvents(s, events)...)
}

// fromEvents: a change that happens once is told from its event.
func fromEvents(s *teamwatch.Snapshot, events []teamwatch.Event) []Notice {
	var out []Notice
	for _, e := range events {
		n := Notice{Time: e.Time, Team: e.Team, Who: e.Who, Host: e.Host}
		switch e.Kind {
		case teamwatch.KindTaskCompleted:
			if e.Owner == "" {
				continue // nobody's task: nobody finished it
			}
			n.Kind, n.Task, n.Subject = Finished, e.Task, e.Subject
			n.Text = fmt.Sprintf("%s finished task %s: %s", visible.Line(e.WhoLabel()), visible.Line(e.Task), visible.Line(e.Subject))
		case OverBudgetEvent:
			n.Kind = OverBudget
			n.Text = strings.TrimSpace(visible.Line(e.WhoLabel()) + " " + e.What())
		default:
			continue
		}
		if m := s.Member(e.Who); m != nil {
			n.Pane = tmuxPane(*m)
		}
		out = append(out, n)
	}
	return out
}

// why says what a member needing you waits on.
func why(m teamwatch.Member) string {
	switch {
	case m.Waiting > 0:
		return fmt.Sprintf("%d request(s) wait for the lead", m.Waiting)
	case m.Asks != "":
		s := "asks in its pane (" + visible.Line(m.Asks) + ")"
		if m.AsksAbout != "" {
			s += ": " + visible.Line(m.AsksAbout)
		}
		return s
	}
	return "it waits for the lead"
}

// tmuxPane is the member's pane when tmux holds it: where a bell can ring.
func tmuxPane(m teamwatch.Member) string {
	if m.Backend == team.BackendTmux && strings.HasPrefix(m.PaneID, "%") {
		return m.PaneID
	}
	return ""
}
