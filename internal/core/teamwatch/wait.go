package teamwatch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// Goal is what a wait waits for: teammates in one state.
type Goal struct {
	Until State    // StateIdle, StateNeedsYou or StateGone
	Names []string // the teammates; nil is every teammate as the wait starts
}

// CheckUntil refuses a state no wait can end on.
func CheckUntil(s State) error {
	switch s {
	case StateIdle, StateNeedsYou, StateGone:
		return nil
	case "":
		return errors.New("say what to wait for: idle, needs-you or gone")
	}
	return fmt.Errorf("%q is not a state to wait for: use idle, needs-you or gone", string(s))
}

// WaitResult is where a wait ended: each teammate's last state.
type WaitResult struct {
	Team    string       `json:"team"`
	Until   string       `json:"until"`
	OK      bool         `json:"ok"`
	Members []WaitMember `json:"members"`
}

// WaitMember is one teammate at the end of a wait.
type WaitMember struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// Left: it is no longer a member of the team.
	Left bool `json:"left,omitempty"`
}

// Wait follows w until every teammate of g is in g.Until, and returns
// their states. A teammate that leaves (or whose pane dies) fails a wait
// for idle or needs-you at once, naming it; for gone, leaving is success.
// The result is returned with ctx's error when ctx ends first.
func (g Goal) Wait(ctx context.Context, w *Watcher) (*WaitResult, error) {
	s, _, err := w.Next(ctx)
	if err != nil {
		return nil, err
	}
	names, err := g.targets(s)
	if err != nil {
		return nil, err
	}
	res := &WaitResult{Team: s.Team, Until: string(g.Until)}
	for {
		if done, err := g.check(res, s, names); done || err != nil {
			return res, err
		}
		s, _, err = w.Next(ctx)
		if errors.Is(err, ErrTeamGone) {
			s = &Snapshot{Team: res.Team} // nobody is left
			if done, err := g.check(res, s, names); done || err != nil {
				return res, err
			}
		}
		if err != nil {
			return res, err
		}
	}
}

// targets are the teammates to wait for, checked against the team as the
// wait starts.
func (g Goal) targets(s *Snapshot) ([]string, error) {
	if g.Names == nil {
		var all []string
		for _, m := range s.Members {
			if !strings.EqualFold(m.Name, team.LeadName) {
				all = append(all, m.Name)
			}
		}
		if len(all) == 0 && g.Until != StateGone {
			return nil, &NoTeammatesError{Team: visible.Line(s.Team)}
		}
		return all, nil
	}
	var out []string
	for _, n := range g.Names {
		m := s.Member(n)
		if m != nil {
			out = append(out, m.Name)
			continue
		}
		if g.Until != StateGone {
			var members []string
			for _, m := range s.Members {
				members = append(members, visible.Line(m.Name))
			}
			return nil, fmt.Errorf("%q is not a member of team %s (members: %s)", n, visible.Line(s.Team), strings.Join(members, ", "))
		}
		out = append(out, n) // already gone
	}
	return out, nil
}

// check records each teammate's state and reports whether all are there;
// a teammate that left or died fails a wait for idle or needs-you.
func (g Goal) check(res *WaitResult, s *Snapshot, names []string) (bool, error) {
	res.Members = res.Members[:0]
	res.OK = true
	var left []string
	for _, n := range names {
		wm := WaitMember{Name: n, State: string(StateGone), Left: true}
		if m := s.Member(n); m != nil {
			wm = WaitMember{Name: m.Name, State: string(m.State)}
		}
		res.Members = append(res.Members, wm)
		if wm.State != string(g.Until) {
			res.OK = false
			if wm.State == string(StateGone) {
				left = append(left, visible.Line(n))
			}
		}
	}
	if len(left) > 0 {
		return true, fmt.Errorf("%s left the team (or its pane died) while waiting for %s", strings.Join(left, ", "), g.Until)
	}
	return res.OK, nil
}

// Missing names who is not in the wanted state, with its state.
func (r *WaitResult) Missing() string {
	if r == nil {
		return "the team"
	}
	var out []string
	for _, m := range r.Members {
		if m.State != r.Until {
			out = append(out, fmt.Sprintf("%s (%s)", visible.Line(m.Name), m.State))
		}
	}
	return strings.Join(out, ", ")
}

// NoTeammatesError is a wait for the teammates of a team that has none.
type NoTeammatesError struct{ Team string }

func (e *NoTeammatesError) Error() string {
	return fmt.Sprintf("team %s has no teammates to wait for: spawn one first", e.Team)
}
