package web

import (
	"fmt"
	"sort"
	"time"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// View is what the page shows, as the server sends it (JSON over
// Server-Sent Events). Every string is someone else's text: the page
// puts each one in with textContent, never as markup.
type View struct {
	Team     string    `json:"team"`
	Taken    time.Time `json:"taken"`
	Members  []Member  `json:"members"`
	Tasks    []Task    `json:"tasks"`
	Requests []Request `json:"requests"`
	Messages []Message `json:"messages"`
	Notices  []Notice  `json:"notices"`
	// Resumable are the members Resume would start again, when the team
	// stopped (its lead and every teammate's pane went away): empty
	// otherwise.
	Resumable []string `json:"resumable,omitempty"`
	Problems  []string `json:"problems,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// Member is one row of the members' table.
type Member struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	CLI     string `json:"cli"`
	Backend string `json:"backend"`
	Branch  string `json:"branch,omitempty"`
	Unread  int    `json:"unread"`
	Cost    string `json:"cost"`
	Asks    string `json:"asks,omitempty"` // a dialog in its own pane
	Lead    bool   `json:"lead,omitempty"`
	// PaneView: its pane can be shown and answered (panes.go); else
	// PaneNote, when set, says why not.
	PaneView bool   `json:"paneView,omitempty"`
	PaneNote string `json:"paneNote,omitempty"`
	// PaneWhere names the terminal pane shown (tmux's socket and pane
	// id, kitty's window), so the person sees what they answer.
	PaneWhere string `json:"paneWhere,omitempty"`
}

// Task is one task of the list.
type Task struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
	Owner   string `json:"owner,omitempty"`
}

// Request is one request waiting for the lead.
type Request struct {
	ID      string `json:"id"`
	From    string `json:"from"`
	Kind    string `json:"kind"`
	Subject string `json:"subject"`
	Plan    string `json:"plan,omitempty"`
	Waited  string `json:"waited"`
}

// Message is one recent message to or from the lead.
type Message struct {
	From    string    `json:"from"`
	To      string    `json:"to"`
	Kind    string    `json:"kind"`
	Summary string    `json:"summary"`
	Time    time.Time `json:"time"`
}

// Notice is one change the person may want to hear of.
type Notice struct {
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	Text string    `json:"text"`
}

// recentMessages is how many of the lead's messages the page keeps.
const recentMessages = 30

// viewOf builds the page's view of a snapshot and the waiting requests.
func viewOf(s *teamwatch.Snapshot, reqs []approval.Request, now time.Time) View {
	v := View{Team: s.Team, Taken: s.Taken, Members: []Member{}, Tasks: []Task{}, Requests: []Request{},
		Messages: []Message{}, Notices: []Notice{}, Problems: s.Problems}
	for _, m := range s.Members {
		v.Members = append(v.Members, Member{Name: line(m.Label()), State: string(m.State), CLI: line(m.Runs()), Backend: line(m.Backend),
			Branch: line(m.Branch), Unread: m.Unread, Cost: costWord(m), Asks: line(m.AsksAbout), Lead: m.Name == team.LeadName})
	}
	for _, t := range s.Tasks {
		v.Tasks = append(v.Tasks, Task{ID: line(t.ID), Subject: line(t.Subject), Status: line(t.Status), Owner: line(t.Owner)})
	}
	for _, r := range reqs {
		// Subject is made for a terminal (control characters shown as
		// escapes); the page shows it as text too.
		w := Request{ID: r.ID, From: line(r.From), Kind: string(r.Kind), Subject: approval.Subject(r), Waited: waited(now, r.Time)}
		if r.Kind == approval.KindPlan {
			w.Plan = visible.Block(r.PlanContent)
		}
		v.Requests = append(v.Requests, w)
	}
	var msgs []Message
	for _, m := range s.Messages {
		if m.From == team.LeadName || m.To == team.LeadName {
			msgs = append(msgs, Message{From: line(m.From), To: line(m.To), Kind: line(m.Kind), Summary: line(m.Summary), Time: m.Time})
		}
	}
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].Time.Before(msgs[j].Time) })
	if len(msgs) > recentMessages {
		msgs = msgs[len(msgs)-recentMessages:]
	}
	v.Messages = append(v.Messages, msgs...)
	if s.Resumable != nil {
		for _, n := range s.Resumable.Members {
			v.Resumable = append(v.Resumable, line(n))
		}
	}
	return v
}

// line is how a text someone else wrote reaches the page: the one rule
// the terminal uses (visible.Line), so an escape sequence or another
// control character arrives as visible characters (\x1b as \x1b), never
// as a control the browser or a copy into a terminal could act on. The
// page then puts it in as text.
func line(s string) string { return visible.Line(s) }

func costWord(m teamwatch.Member) string {
	if m.Usage == nil || m.Usage.CostUSD == nil {
		return ""
	}
	return fmt.Sprintf("$%.2f", *m.Usage.CostUSD)
}

func waited(now, since time.Time) string {
	if since.IsZero() {
		return ""
	}
	return now.Sub(since).Round(time.Second).String()
}

// noticeKinds are the events told on the page: a teammate that needs
// the person, finished (went idle), died or went over its budget.
var noticeKinds = map[string]bool{
	teamwatch.KindNeedsYou: true, teamwatch.KindIdle: true, teamwatch.KindGone: true,
	teamwatch.KindLeft: true, teamwatch.KindBudget: true, teamwatch.KindSpent: true,
}

func noticesOf(evs []teamwatch.Event) []Notice {
	var out []Notice
	for _, e := range evs {
		if noticeKinds[e.Kind] {
			out = append(out, Notice{Time: e.Time, Kind: e.Kind, Text: line(e.WhoLabel()) + " " + e.What()})
		}
	}
	return out
}
