package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/paneanswer"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// Panes is what the page does to a pane that asks: show its screen and
// type an answer into it. Live does it through package paneanswer, which
// reaches only panes paneteam started for the team (and Claude's lead's,
// when recorded at its start).
// Reached is one member's pane as Reach found it: where it is (tmux's
// socket and pane id, kitty's window: what the person answers), or Err.
type Reached struct {
	Where string
	Err   error
}

type Panes interface {
	// Reach says, for each of names, whether its pane (team.LeadName:
	// Claude's lead's) can be shown and answered: where it is, or why
	// not. One call lists each tmux server's panes once.
	Reach(ctx context.Context, names []string) []Reached
	// Screen is what name's pane shows now, as text.
	Screen(ctx context.Context, name string) (string, error)
	// Type types in into name's pane.
	Type(ctx context.Context, name string, in paneanswer.Input) error
}

func (l *Live) pane(ctx context.Context, name string) (paneanswer.Target, error) {
	return l.paneIn(ctx, nil, name)
}

func (l *Live) paneIn(ctx context.Context, ls *paneanswer.Listing, name string) (paneanswer.Target, error) {
	if l.Caller.Getenv == nil {
		return paneanswer.Target{}, errors.New("no state folder to find paneteam's launch records in")
	}
	state, err := provenance.StateDir(l.Caller.Getenv)
	if err != nil {
		return paneanswer.Target{}, err
	}
	if name == team.LeadName {
		return ls.LeadOfTeam(ctx, state, l.Team)
	}
	return ls.Teammate(ctx, state, l.Team, name)
}

// Reach finds each of names' panes as paneanswer judges it, with one
// listing of each tmux server's panes.
func (l *Live) Reach(ctx context.Context, names []string) []Reached {
	ls := paneanswer.NewListing()
	out := make([]Reached, len(names))
	for i, n := range names {
		tg, err := l.paneIn(ctx, ls, n)
		if err != nil {
			out[i].Err = err
		} else {
			out[i].Where = tg.Where()
		}
	}
	return out
}

// Screen reads name's pane, found anew each time.
func (l *Live) Screen(ctx context.Context, name string) (string, error) {
	tg, err := l.pane(ctx, name)
	if err != nil {
		return "", err
	}
	return tg.Screen(ctx)
}

// Type finds name's pane anew and types in into it.
func (l *Live) Type(ctx context.Context, name string, in paneanswer.Input) error {
	if err := in.Check(); err != nil {
		return err
	}
	tg, err := l.pane(ctx, name)
	if err != nil {
		return err
	}
	return tg.Type(ctx, in)
}

// markPanes tells the page which members' panes it may show: a teammate
// that asks in its own pane, and Claude's lead (whose own questions the
// team's files never show). Where it may not, the note says why.
func markPanes(ctx context.Context, p Panes, v *View, s *teamwatch.Snapshot) {
	ctx, cancel := context.WithTimeout(ctx, paneTimeout)
	defer cancel()
	claudeLed := s.Lead != nil && s.Lead.ClaudeLed()
	var names []string
	var at []int
	for i, m := range s.Members {
		if i >= len(v.Members) {
			break
		}
		lead := m.Name == team.LeadName
		if !(lead && claudeLed) && (lead || m.Asks == "") {
			continue
		}
		names, at = append(names, m.Name), append(at, i)
	}
	if len(names) == 0 {
		return
	}
	for j, r := range p.Reach(ctx, names) {
		if j >= len(at) {
			break
		}
		if r.Err != nil {
			v.Members[at[j]].PaneNote = paneNote(r.Err)
		} else {
			v.Members[at[j]].PaneView = true
			v.Members[at[j]].PaneWhere = line(r.Where)
		}
	}
}

func paneNote(err error) string {
	var re *paneanswer.RefusedError
	if errors.As(err, &re) && re.Reason == paneanswer.LeadElsewhere {
		return "Claude's lead asks in your own terminal: its questions wait there. " +
			"To answer them from this page too, start the lead with paneteam claude --answer-from-web."
	}
	return line(err.Error())
}

// paneRefresh is how often a pane someone looks at is read again; a
// screen that did not change is not sent. Nothing is read for a pane
// nobody looks at.
const paneRefresh = 500 * time.Millisecond

// paneTimeout bounds the tmux calls of one look at the panes, so that a
// server that does not answer holds up neither the view nor a stream.
const paneTimeout = 5 * time.Second

// paneEvent is one screen of a pane, as the page gets it ("pane" events).
type paneEvent struct {
	Name   string `json:"name"`
	Screen string `json:"screen"`
	Error  string `json:"error,omitempty"`
}

// look is one event stream's view of a pane (?look=NAME): read every
// paneRefresh, and at once after an answer was typed into one of the
// team's panes.
type look struct {
	name    string
	panes   Panes
	tick    *time.Ticker
	last    string
	refused string // why this session is not shown the pane, if it is not
}

// leadReadOnly is why a read-only session is not shown the lead's pane:
// it is the person's own terminal, not a pane paneteam made.
const leadReadOnly = "a read-only view does not show Claude's lead's own terminal: " +
	"open the page with the full link to see it (teammates' panes stay visible here)"

func newLook(r *http.Request, b *board, sess *session) *look {
	name := r.URL.Query().Get("look")
	p, ok := b.Actions.(Panes)
	if name == "" || !ok {
		return nil
	}
	lk := &look{name: name, panes: p, tick: time.NewTicker(paneRefresh)}
	if sess.readOnly && name == team.LeadName {
		lk.refused = leadReadOnly
	}
	return lk
}

func (l *look) due() <-chan time.Time {
	if l == nil {
		return nil
	}
	return l.tick.C
}

func (l *look) stop() {
	if l != nil {
		l.tick.Stop()
	}
}

// next is the event to send, or nil when the screen is as last sent.
func (l *look) next(ctx context.Context) []byte {
	if l == nil {
		return nil
	}
	ev := paneEvent{Name: l.name}
	if l.refused != "" {
		ev.Error = l.refused
		return l.changed(ev)
	}
	ctx, cancel := context.WithTimeout(ctx, paneTimeout)
	defer cancel()
	screen, err := l.panes.Screen(ctx, l.name)
	if err != nil {
		ev.Error = line(err.Error())
	} else {
		// Captured without escapes; any other control character left
		// becomes visible text, as every text someone else wrote.
		ev.Screen = visible.Block(screen)
	}
	return l.changed(ev)
}

// changed is ev encoded, or nil when it is as last sent.
func (l *look) changed(ev paneEvent) []byte {
	b, jerr := json.Marshal(ev)
	if jerr != nil || string(b) == l.last {
		return nil
	}
	l.last = string(b)
	return b
}

// typed rings every stream of a team after an answer was typed into one
// of its panes, so that the screen is read again at once.
type typed struct {
	mu sync.Mutex
	ch chan struct{}
}

func (t *typed) wait() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ch == nil {
		t.ch = make(chan struct{})
	}
	return t.ch
}

func (t *typed) ring() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ch != nil {
		close(t.ch)
	}
	t.ch = make(chan struct{})
}

type paneBody struct {
	Name  string   `json:"name"`
	Keys  []string `json:"keys"`
	Text  string   `json:"text"`
	Enter bool     `json:"enter"`
}

// pane types an answer into a pane that asks: keys a dialog takes, or a
// line of text. The log says which keys, but of a text only its length.
func (s *Server) pane(w http.ResponseWriter, r *http.Request, bd *board) (string, error) {
	var b paneBody
	if err := decode(r, &b); err != nil {
		return "type into a pane", err
	}
	what := "type into " + line(b.Name) + "'s pane: "
	if len(b.Keys) > 0 {
		what += "keys " + line(strings.Join(b.Keys, " "))
	} else {
		what += fmt.Sprintf("a line of %d characters", len([]rune(b.Text)))
	}
	if b.Enter {
		what += ", Enter"
	}
	if b.Name == "" {
		return what, errors.New("name the member whose pane to type into")
	}
	p, ok := bd.Actions.(Panes)
	if !ok {
		return what, errors.New("this server does not answer panes")
	}
	ctx, cancel := context.WithTimeout(r.Context(), paneTimeout)
	defer cancel()
	err := p.Type(ctx, b.Name, paneanswer.Input{Keys: b.Keys, Text: b.Text, Enter: b.Enter})
	bd.typed.ring()
	return what, err
}

// sendPane sends the looked-at pane's screen when it changed, while the
// session lives.
func (s *Server) sendPane(st stream, r *http.Request, sess *session, lk *look) error {
	if lk == nil || s.sessions.find(sess.id, s.cfg.Now()) == nil {
		return nil
	}
	if b := lk.next(r.Context()); b != nil {
		return st.write("event: pane\ndata: %s\n\n", b)
	}
	return nil
}
