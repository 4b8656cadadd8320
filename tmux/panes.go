package tmux

import (
	"context"
	"fmt"
	"strconv"
	"sync"
)

// AgentOption is the pane user option paneteam sets on every pane it
// creates, holding the agent id (tmux(1) "OPTIONS": options starting with
// @ are user options). Kill, hide and show act only on panes carrying the
// matching value, so a pane paneteam did not create is never touched.
const AgentOption = "@paneteam-agent"

// ClaudeLeadOption is the pane user option paneteam's tmux (run for
// Claude Code by 'paneteam claude') sets on every pane it makes for a
// Claude Code lead: "<pid>:<start time>" of that lead process, so that a
// pane whose lead is gone can be proven so.
const ClaudeLeadOption = "@paneteam-claude-lead"

// Pane is one pane as tmux reports it.
type Pane struct {
	ID         string // %N
	WindowID   string // @N
	Session    string // session name
	Index      int    // pane_index in its window
	Left, Top  int
	Width      int
	Height     int
	Active     bool
	Dead       bool // the command has exited and the pane remains
	DeadStatus int  // its exit status, when StatusReady
	// StatusReady says tmux has reaped the command and knows its status:
	// a pane can be dead (its terminal closed) a moment before that, with
	// pane_dead_status still empty.
	StatusReady bool
	PID         int
	Agent       string // the AgentOption value; "" for panes paneteam did not create
	Title       string
	// Synchronized: the window's synchronize-panes is on, so keys sent
	// to this pane go to every pane of the window (tmux(1) "OPTIONS").
	Synchronized bool
	// InMode: the pane is in a mode (copy mode, a chooser), whose key
	// bindings take the keys sent instead of the pane's program.
	InMode bool
}

// Area is the pane's size in cells.
func (p Pane) Area() int { return p.Width * p.Height }

// paneVars are the format variables of a Pane, in parsePane's order.
var paneVars = []string{
	"pane_id", "window_id", "session_name", "pane_index",
	"pane_left", "pane_top", "pane_width", "pane_height",
	"pane_active", "pane_dead", "pane_dead_status", "pane_pid",
	AgentOption, "pane_title", "pane_synchronized", "pane_in_mode",
}

// paneFormat is built at the first listing, not at package init: most
// paneteam processes list no pane, and building it was a fiftieth of the
// instructions of 'paneteam --version' (bench/RESULTS.md).
var paneFormat = sync.OnceValue(func() string { return Format(paneVars...) })

func parsePane(f []string) (Pane, error) {
	var p Pane
	p.ID, p.WindowID, p.Session = f[0], f[1], f[2]
	ints := []*int{&p.Index, &p.Left, &p.Top, &p.Width, &p.Height}
	for i, dst := range ints {
		n, err := strconv.Atoi(f[3+i])
		if err != nil {
			return Pane{}, fmt.Errorf("tmux pane %s: %s: %w", p.ID, paneVars[3+i], err)
		}
		*dst = n
	}
	p.Active = f[8] == "1"
	p.Dead = f[9] == "1"
	if f[10] != "" { // empty while the pane lives and until tmux reaps its command
		p.DeadStatus, _ = strconv.Atoi(f[10])
		p.StatusReady = true
	}
	p.PID, _ = strconv.Atoi(f[11])
	p.Agent, p.Title = f[12], f[13]
	p.Synchronized, p.InMode = f[14] == "1", f[15] != "" && f[15] != "0"
	return p, nil
}

func parsePanes(out string) ([]Pane, error) {
	recs, err := ParseLines(out, len(paneVars))
	if err != nil {
		return nil, err
	}
	panes := make([]Pane, 0, len(recs))
	for _, f := range recs {
		p, err := parsePane(f)
		if err != nil {
			return nil, err
		}
		panes = append(panes, p)
	}
	return panes, nil
}

// WindowPanes lists the panes of the window holding target (a pane, window
// or session), in the window's order.
func (s Server) WindowPanes(ctx context.Context, target string) ([]Pane, error) {
	out, err := s.Run(ctx, "list-panes", "-t", target, "-F", paneFormat())
	if err != nil {
		return nil, err
	}
	return parsePanes(out)
}

// SessionPanes lists every pane of a session.
func (s Server) SessionPanes(ctx context.Context, session string) ([]Pane, error) {
	out, err := s.Run(ctx, "list-panes", "-s", "-t", session, "-F", paneFormat())
	if err != nil {
		return nil, err
	}
	return parsePanes(out)
}

// AllPanes lists every pane on the server.
func (s Server) AllPanes(ctx context.Context) ([]Pane, error) {
	out, err := s.Run(ctx, "list-panes", "-a", "-F", paneFormat())
	if err != nil {
		return nil, err
	}
	return parsePanes(out)
}

// PaneByID describes one pane; ErrPaneNotFound when it is gone.
//
// It lists all panes rather than asking display-message about the id:
// display-message -t falls back to the current pane for some targets, and
// a listing can only ever report the pane itself.
func (s Server) PaneByID(ctx context.Context, id string) (Pane, error) {
	panes, err := s.AllPanes(ctx)
	if err != nil {
		return Pane{}, err
	}
	for _, p := range panes {
		if p.ID == id {
			return p, nil
		}
	}
	return Pane{}, fmt.Errorf("pane %s on %s: %w", id, s, ErrPaneNotFound)
}

// OwnedPane returns the pane id if it exists and carries AgentOption set
// to agent; otherwise ErrPaneNotFound, or ErrNotOurs when it belongs to
// someone else.
func (s Server) OwnedPane(ctx context.Context, id, agent string) (Pane, error) {
	p, err := s.PaneByID(ctx, id)
	if err != nil {
		return Pane{}, err
	}
	if p.Agent != agent {
		return Pane{}, &NotOursError{Pane: id, Want: agent, Got: p.Agent}
	}
	return p, nil
}

// NotOursError: a pane exists under the recorded id but paneteam did not
// create it for this agent (tmux reuses pane ids after a server restart).
type NotOursError struct{ Pane, Want, Got string }

func (e *NotOursError) Error() string {
	who := "no paneteam agent"
	if e.Got != "" {
		who = "agent " + e.Got
	}
	return fmt.Sprintf("pane %s belongs to %s, not %s: leaving it alone", e.Pane, who, e.Want)
}
