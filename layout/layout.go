// Package layout decides where a teammate's pane goes. It is pure: from
// the panes of a window and a policy it returns a Plan (which pane to
// split, which way, and how to re-lay out the window afterwards); the tmux
// backend carries it out. Keeping the decision here lets it be tested
// exhaustively without a terminal.
//
// The default policy matches Claude Code inside tmux: the first teammate
// splits the lead's pane side by side, taking 70%; later teammates stack
// in the right column and the window is re-laid out main-vertical with
// the lead at 30%. Outside tmux, teammates are tiled. The windows policy
// gives each teammate a window (a tab) of its own and leaves the lead's
// window as it is.
package layout

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind names a tmux layout policy.
type Kind string

const (
	// MainVertical keeps the lead in a column on the left and stacks
	// teammates on the right (tmux's main-vertical layout).
	MainVertical Kind = "main-vertical"
	// Tiled gives every pane the same size (tmux's tiled layout).
	Tiled Kind = "tiled"
	// Windows gives every teammate a window (a tab) of its own; the
	// lead's window is never split or rearranged.
	Windows Kind = "windows"
)

// DefaultLeadPercent is the lead's share of the window width under
// MainVertical, as Claude Code sizes it.
const DefaultLeadPercent = 30

// Policy is how a window of teammates is laid out.
type Policy struct {
	Kind Kind // "" chooses MainVertical when there is a lead, else Tiled
	// LeadPercent is the lead column's width in percent of the window
	// (MainVertical); 0 means DefaultLeadPercent.
	LeadPercent int
}

// ParseKind checks a --layout value.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case "", MainVertical, Tiled, Windows:
		return k, nil
	}
	return "", fmt.Errorf("unknown layout %q: use %s, %s or %s", s, MainVertical, Tiled, Windows)
}

// Validate reports a policy that cannot be laid out.
func (p Policy) Validate() error {
	if _, err := ParseKind(string(p.Kind)); err != nil {
		return err
	}
	if p.LeadPercent != 0 && (p.LeadPercent < 10 || p.LeadPercent > 90) {
		return fmt.Errorf("lead percentage %d is out of range: use 10 to 90", p.LeadPercent)
	}
	return nil
}

func (p Policy) leadPercent() int {
	if p.LeadPercent == 0 {
		return DefaultLeadPercent
	}
	return p.LeadPercent
}

// Role is what a pane is to the team.
type Role int

const (
	// Other is a pane paneteam did not create for this team (the user's
	// own, or another team's): it is never split or rearranged.
	Other Role = iota
	// Lead is the team lead's pane.
	Lead
	// Teammate is a pane paneteam created for a member of this team.
	Teammate
)

// Pane is one pane of the window, as far as layout cares.
type Pane struct {
	ID            string
	Role          Role
	Width, Height int
}

// Window is the window a new pane joins, its panes in tmux's order. A
// window with no panes does not exist yet.
type Window struct{ Panes []Pane }

// Split says how to make the new pane.
type Split struct {
	Target string // the pane to split
	// Horizontal puts the new pane beside Target (tmux -h); otherwise it
	// goes below (tmux -v).
	Horizontal bool
	// Percent is the new pane's share of Target; 0 means half.
	Percent int
}

// Relayout is what to do to the window once the new pane is in it.
type Relayout struct {
	Layout Kind // select-layout this; "" keeps the window as it is
	// Lead is resized to LeadPercent of the window width after Layout.
	Lead        string
	LeadPercent int
}

// Plan is where the next pane goes.
type Plan struct {
	// NewWindow means there is nothing to split: create the window (and
	// session) with the new pane in it.
	NewWindow bool
	// OwnWindow means the pane gets a window of its own, in the session
	// of Split.Target (the windows policy); the window is not split.
	OwnWindow bool
	Split     Split
	Relayout  Relayout
}

// Next plans the placement of one more teammate in w.
func Next(p Policy, w Window) (Plan, error) {
	if err := p.Validate(); err != nil {
		return Plan{}, err
	}
	if len(w.Panes) == 0 {
		return Plan{NewWindow: true}, nil
	}
	lead, mates := w.lead(), w.teammates()
	if p.Kind == Windows {
		target := w.Panes[0]
		if lead != nil {
			target = *lead
		} else if len(mates) > 0 {
			target = mates[0]
		}
		return Plan{OwnWindow: true, Split: Split{Target: target.ID}}, nil
	}
	var split Split
	switch p.kind(lead != nil) {
	case MainVertical:
		if len(mates) == 0 {
			// Claude Code: split-window -h -l 70% on the lead; the split
			// alone gives the lead its share.
			return Plan{Split: Split{Target: lead.ID, Horizontal: true, Percent: 100 - p.leadPercent()}}, nil
		}
		split = Split{Target: tallest(mates).ID}
	default:
		base := mates
		if len(base) == 0 {
			base = w.ofRole(Lead)
		}
		if len(base) == 0 {
			return Plan{}, fmt.Errorf("no pane of this team in the window to split")
		}
		t := largest(base)
		split = Split{Target: t.ID, Horizontal: wide(t)}
	}
	// Once the new pane is in, the window is arranged as After would
	// arrange it: one rule for joining and leaving.
	joined := Window{Panes: append(slices.Clone(w.Panes), Pane{Role: Teammate})}
	return Plan{Split: split, Relayout: After(p, joined)}, nil
}

// After is the re-layout of w once panes have left or rejoined it: the
// same arrangement Next would have produced, without a new pane.
func After(p Policy, w Window) Relayout {
	lead, mates := w.lead(), w.teammates()
	if len(mates) == 0 || !w.arrangeable() || p.Kind == Windows {
		return Relayout{}
	}
	if p.kind(lead != nil) == MainVertical {
		// main-vertical makes the window's FIRST pane the main one
		// (tmux(1) select-layout), so it is only used when that is the
		// lead.
		if w.Panes[0].Role != Lead {
			return Relayout{}
		}
		return Relayout{Layout: MainVertical, Lead: lead.ID, LeadPercent: p.leadPercent()}
	}
	return Relayout{Layout: Tiled}
}

// kind resolves the policy's layout: main-vertical needs a lead column.
func (p Policy) kind(haveLead bool) Kind {
	if !haveLead {
		return Tiled
	}
	if p.Kind == "" {
		return MainVertical
	}
	return p.Kind
}

func (w Window) lead() *Pane {
	for i := range w.Panes {
		if w.Panes[i].Role == Lead {
			return &w.Panes[i]
		}
	}
	return nil
}

func (w Window) teammates() []Pane { return w.ofRole(Teammate) }

func (w Window) ofRole(r Role) []Pane {
	var out []Pane
	for _, p := range w.Panes {
		if p.Role == r {
			out = append(out, p)
		}
	}
	return out
}

// arrangeable: select-layout moves every pane of a window, so it is only
// used when the window holds nothing but the team's panes.
func (w Window) arrangeable() bool { return len(w.ofRole(Other)) == 0 }

// tallest is the teammate with the most rows (the last of equals, so
// stacking proceeds downwards).
func tallest(ps []Pane) Pane {
	best := ps[0]
	for _, p := range ps[1:] {
		if p.Height >= best.Height {
			best = p
		}
	}
	return best
}

// largest is the pane with the most cells (the last of equals).
func largest(ps []Pane) Pane {
	best := ps[0]
	for _, p := range ps[1:] {
		if p.Width*p.Height >= best.Width*best.Height {
			best = p
		}
	}
	return best
}

// wide reports whether a pane is wider than tall on screen: a terminal
// cell is about twice as tall as it is wide.
func wide(p Pane) bool { return p.Width >= 2*p.Height }

// String renders a plan for logs and test failures.
func (pl Plan) String() string {
	if pl.NewWindow {
		return "new window"
	}
	if pl.OwnWindow {
		return "own window beside " + pl.Split.Target
	}
	var b strings.Builder
	dir := "-v"
	if pl.Split.Horizontal {
		dir = "-h"
	}
	fmt.Fprintf(&b, "split %s %s", pl.Split.Target, dir)
	if pl.Split.Percent != 0 {
		b.WriteString(" -l " + strconv.Itoa(pl.Split.Percent) + "%")
	}
	if r := pl.Relayout; r.Layout != "" {
		b.WriteString("; layout " + string(r.Layout))
		if r.Lead != "" {
			fmt.Fprintf(&b, "; lead %s %d%%", r.Lead, r.LeadPercent)
		}
	}
	return b.String()
}

// Carve is the size of the pane split sp makes in w, and what is left of
// the pane it splits, for a terminal that cannot report its panes' sizes
// and keeps notional ones instead (each pane's share of the terminal, as
// the splits that made it cut it). A target not in w has no size.
func Carve(w Window, sp Split) (newWidth, newHeight, leftWidth, leftHeight int) {
	var tw, th int
	for _, p := range w.Panes {
		if p.ID == sp.Target {
			tw, th = p.Width, p.Height
		}
	}
	pct := sp.Percent
	if pct == 0 {
		pct = 50
	}
	if sp.Horizontal {
		nw := tw * pct / 100
		return nw, th, tw - nw, th
	}
	nh := th * pct / 100
	return tw, nh, tw, th - nh
}
