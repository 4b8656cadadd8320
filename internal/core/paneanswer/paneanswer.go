// Package paneanswer shows the screen of a pane that asks a person
// something (an agent CLI's own approval prompt, a Claude teammate's
// dialog, Claude's lead's own question) and types an answer into it: a
// key the dialog takes or a line of text. It is what the web view and
// the dashboard call to answer a question asked in a pane rather than in
// the lead's inbox.
//
// It reaches only panes paneteam may type into, judged by paneteam's own
// records in its state folder, never by config.json (teammates and other
// hosts write that): a teammate's launch record (package launches) names
// its tmux server and pane, and the lead's pane record (package leadpane)
// exists only when the person started the lead with --answer-from-web.
// The pane must still exist on the recorded server and still be the one
// recorded (a teammate's carries its agent id; the lead's holds the lead's
// process). Text is typed literally (tmux send-keys -l; kitty's send-text
// from its standard input; wezterm cli send-text --no-paste from its
// standard input; zellij action write-chars and it2 session send with the
// text as one argument), never through a shell, and the screen is read as
// text, without the pane's escape sequences. Nothing is typed where the
// keys would reach more than the program (a window with synchronize-panes
// on, a pane in copy mode or another mode) or another program (a lead
// suspended or in the background, under which its shell reads). A lead is
// reached in tmux, kitty, WezTerm, Zellij 0.44 or later (whose actions
// take --pane-id) and iTerm2 (through it2).
package paneanswer

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// Target is one pane paneteam may show and type into: a tmux pane
// (Server, Pane), or the kitty window Claude's lead runs in (Kitty).
type Target struct {
	Name   string // the member, or team.LeadName for Claude's lead
	Server tmux.Server
	Pane   string
	Kitty  *native.KittyWindow
	// Native is the pane of another terminal Claude's lead runs in
	// (WezTerm, Zellij, iTerm2), each in its own file.
	Native leadTerminal
	// lead is the lead's process, for Claude's lead: typing needs it in
	// the foreground of its terminal.
	lead int
}

// Where names the terminal pane tg is, for the person to see what they
// answer: tmux's socket and pane id, kitty's window id, or the other
// terminal's own.
func (tg Target) Where() string {
	if tg.Kitty != nil {
		return fmt.Sprintf("kitty window %s at %s", tg.Kitty.ID, tg.Kitty.Addr)
	}
	if tg.Native != nil {
		if s, ok := tg.Native.(fmt.Stringer); ok {
			return s.String()
		}
		return "the lead's own terminal pane"
	}
	return fmt.Sprintf("tmux pane %s on %s", tg.Pane, tg.Server.Socket)
}

// Why a pane is refused.
const (
	// NotStarted: paneteam has no launch record of the member (it did
	// not start it, or the record is another team's or root's).
	NotStarted = "not-started"
	// OtherBackend: its pane is not a tmux pane (in-process, a native
	// terminal's, another host's), which this package does not reach.
	OtherBackend = "other-backend"
	// Gone: the recorded pane, or its server, no longer exists, or the
	// pane under its id is not the one paneteam made.
	Gone = "gone"
	// LeadElsewhere: Claude's lead runs in the person's own terminal and
	// was not started with its pane recorded.
	LeadElsewhere = "lead-elsewhere"
	// NoClaudeLead: the team has no running Claude Code lead whose pane
	// could be recorded (paneteam's own lead answers from the inbox).
	NoClaudeLead = "no-claude-lead"
	// LeadTerminal: the lead's pane was recorded in a terminal whose
	// screen this package cannot read here (one it does not know, Zellij
	// before 0.44, a terminal whose program is not on PATH).
	LeadTerminal = "lead-terminal"
	// Synchronized: the pane's window has synchronize-panes on, so what
	// is typed would reach every pane of the window.
	Synchronized = "synchronized"
	// InMode: the pane is in copy mode (or another mode), whose key
	// bindings would take what is typed.
	InMode = "in-mode"
	// Background: the lead is not in the foreground of its terminal
	// (suspended, or run in the background), so what is typed would
	// reach the shell it was started from.
	Background = "background"
	// LeadShared: another team under the root names the same lead
	// process, so which team's lead record it is cannot be told.
	LeadShared = "lead-shared"
)

// RefusedError is a pane paneteam will not read or type into.
type RefusedError struct {
	Name   string
	Reason string // NotStarted, OtherBackend, Gone, NoClaudeLead, LeadElsewhere, LeadTerminal, Synchronized, InMode, Background, LeadShared
	Detail string // what was found, for people
}

func (e *RefusedError) Error() string {
	switch e.Reason {
	case NotStarted:
		return fmt.Sprintf("%s's pane was not started by paneteam for this team (no launch record): it is not paneteam's to type into", e.Name)
	case OtherBackend:
		return fmt.Sprintf("%s does not run in a tmux pane on this machine (%s): its screen cannot be read or answered from here", e.Name, e.Detail)
	case Gone:
		return fmt.Sprintf("%s's pane is gone: %s", e.Name, e.Detail)
	case NoClaudeLead:
		return "this team is not led by a running Claude Code lead: there is no lead's pane to answer"
	case LeadElsewhere:
		return "Claude's lead runs in your own terminal, whose pane was not recorded at its start: its questions wait there"
	case LeadTerminal:
		return fmt.Sprintf("Claude's lead runs in %s, whose screen paneteam cannot read or answer (it answers a lead in tmux, kitty, WezTerm, Zellij 0.44+ or iTerm2 with it2): its questions wait there", e.Detail)
	case Synchronized:
		return "synchronize-panes is on in that window: turn it off to answer here (what is typed would reach every pane of the window)"
	case InMode:
		return "that pane is in copy mode: leave it first (press q in it), then answer"
	case Background:
		return fmt.Sprintf("Claude's lead is not in the foreground of its terminal (suspended with Ctrl-Z, or in the background): bring it back with fg, then answer; %s", e.Detail)
	case LeadShared:
		return fmt.Sprintf("another team under this root names the same lead process (%s): its pane is not shown, since which team it leads cannot be told", e.Detail)
	}
	return e.Name + ": " + e.Detail
}

// Listing keeps each tmux server's pane listing for one pass over many
// members (the web view marking which panes it may show): one list-panes
// per server, however many members are looked up. A nil Listing lists
// anew at each lookup, as typing wants.
type Listing struct {
	mu sync.Mutex
	m  map[string]listed
}

type listed struct {
	panes []tmux.Pane
	err   error
}

// NewListing is a Listing for one pass.
func NewListing() *Listing { return &Listing{m: map[string]listed{}} }

func (l *Listing) paneByID(ctx context.Context, srv tmux.Server, id string) (tmux.Pane, error) {
	if l == nil {
		return srv.PaneByID(ctx, id)
	}
	l.mu.Lock()
	got, ok := l.m[srv.Socket]
	l.mu.Unlock()
	if !ok {
		got.panes, got.err = srv.AllPanes(ctx)
		l.mu.Lock()
		l.m[srv.Socket] = got
		l.mu.Unlock()
	}
	if got.err != nil {
		return tmux.Pane{}, got.err
	}
	for _, p := range got.panes {
		if p.ID == id {
			return p, nil
		}
	}
	return tmux.Pane{}, fmt.Errorf("pane %s on %s: %w", id, srv, tmux.ErrPaneNotFound)
}

// Teammate is the pane paneteam started for name in t, from its launch
// record in the state folder state, checked on the recorded server.
func Teammate(ctx context.Context, state string, t team.Team, name string) (Target, error) {
	return (*Listing)(nil).Teammate(ctx, state, t, name)
}

// Lead is the pane of Claude's lead of t (cfg is its config.json): see
// Listing.Lead.
func Lead(ctx context.Context, state string, cfg *team.Config) (Target, error) {
	return (*Listing)(nil).Lead(ctx, state, cfg)
}

// LeadOfTeam is Lead for the team t, whose config.json picks the lead's
// record by its leadProcess: a file teammates write. It is refused when
// another team under the same root names the same lead process, since
// which team's lead that pane is cannot be told.
func (l *Listing) LeadOfTeam(ctx context.Context, state string, t team.Team) (Target, error) {
	cfg, err := team.Load(t.ConfigPath())
	if err != nil {
		return Target{}, err
	}
	lp, ok := cfg.LeadProcess()
	if !ok {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: NoClaudeLead}
	}
	names, err := team.List(t.Root)
	if err != nil {
		return Target{}, err
	}
	var others []string
	for _, n := range names {
		if n == t.Name {
			continue
		}
		oc, err := team.Load(team.Team{Root: t.Root, Name: n}.ConfigPath())
		if err != nil {
			continue
		}
		if op, ok := oc.LeadProcess(); ok && op.PID == lp.PID && op.PIDSpace == lp.PIDSpace {
			others = append(others, n)
		}
	}
	if len(others) > 0 {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadShared,
			Detail: fmt.Sprintf("process %d, named by %s too", lp.PID, strings.Join(others, ", "))}
	}
	return l.Lead(ctx, state, cfg)
}

// Teammate is the package's Teammate, with the panes of l's listing.
func (l *Listing) Teammate(ctx context.Context, state string, t team.Team, name string) (Target, error) {
	if team.IsLeadName(nil, name) {
		return Target{}, &RefusedError{Name: name, Reason: NotStarted}
	}
	rec, err := launches.Open(state).Read(t.Root, t.Name, name)
	if err != nil {
		return Target{}, fmt.Errorf("read %s's launch record: %w", name, err)
	}
	if rec == nil {
		return Target{}, &RefusedError{Name: name, Reason: NotStarted}
	}
	if rec.Host != "" || rec.Backend != team.BackendTmux || rec.TmuxSocket == "" || !strings.HasPrefix(rec.Pane, "%") {
		what := rec.Backend
		if rec.Host != "" {
			what = "on " + rec.Host
		}
		if what == "" {
			what = "no tmux pane recorded"
		}
		return Target{}, &RefusedError{Name: name, Reason: OtherBackend, Detail: what}
	}
	srv := tmux.Server{Socket: rec.TmuxSocket}
	// The pane paneteam made carries the agent id it set (tmux's
	// @paneteam-agent): a pane of a later server that reused the id does
	// not.
	p, err := l.paneByID(ctx, srv, rec.Pane)
	if err == nil && p.Agent != team.AgentID(name, t.Name) {
		err = &tmux.NotOursError{Pane: rec.Pane, Want: team.AgentID(name, t.Name), Got: p.Agent}
	}
	if err != nil {
		return Target{}, gone(name, err)
	}
	if p.Dead {
		return Target{}, &RefusedError{Name: name, Reason: Gone, Detail: "its command has exited"}
	}
	return Target{Name: name, Server: srv, Pane: p.ID}, nil
}

func gone(name string, err error) error {
	var no *tmux.NotOursError
	if errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrPaneNotFound) || errors.As(err, &no) {
		return &RefusedError{Name: name, Reason: Gone, Detail: err.Error()}
	}
	return fmt.Errorf("find %s's pane: %w", name, err)
}

// Lead is the pane of Claude's lead of t (cfg is its config.json), from
// the lead's pane record: the team's leadProcess names the process, and
// only a record of that very process, still running, is believed. The
// recorded tmux pane must still exist and hold the lead, in the
// foreground of its terminal.
func (l *Listing) Lead(ctx context.Context, state string, cfg *team.Config) (Target, error) {
	lp, ok := cfg.LeadProcess()
	if !ok {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: NoClaudeLead}
	}
	if lp.PIDSpace != proc.PIDSpace() {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadElsewhere}
	}
	start := ""
	if lp.HasProcStart {
		start = lp.ProcStart
	}
	rec, err := leadpane.Read(state, int(lp.PID), start)
	if errors.Is(err, leadpane.ErrNone) {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadElsewhere}
	}
	if err != nil {
		return Target{}, err
	}
	if rec.Terminal == "kitty" && rec.KittyListenOn != "" && rec.KittyWindow != "" {
		return kittyLead(ctx, rec)
	}
	if lead, ok := nativeLeads[rec.Terminal]; ok {
		tg, err := lead(ctx, rec)
		tg.lead = rec.PID
		return tg, err
	}
	if rec.Terminal != leadpane.TerminalTmux {
		what := rec.Terminal
		if what == "" {
			what = "a terminal paneteam does not know"
		}
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: what}
	}
	srv := tmux.Server{Socket: rec.TmuxSocket}
	p, err := l.paneByID(ctx, srv, rec.TmuxPane)
	if err != nil {
		return Target{}, gone(team.LeadName, err)
	}
	// The pane's process is the lead or one of its ancestors (the shell
	// the person started it from): the pane still holds this lead.
	if p.PID <= 0 || !slices.Contains(proc.Ancestors(rec.PID), p.PID) {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone,
			Detail: fmt.Sprintf("pane %s no longer holds the lead (process %d)", p.ID, rec.PID)}
	}
	tg := Target{Name: team.LeadName, Server: srv, Pane: p.ID, lead: rec.PID}
	if err := tg.foreground(p.PID); err != nil {
		return Target{}, err
	}
	return tg, nil
}

// foreground refuses a lead that is not in the foreground of the
// terminal whose first process is tty: an ancestor check alone passes a
// lead suspended with Ctrl-Z, under which a typed line runs in the shell.
func (tg Target) foreground(tty int) error {
	fg, err := proc.InForeground(tty, tg.lead)
	if err != nil {
		return &RefusedError{Name: team.LeadName, Reason: Gone, Detail: err.Error()}
	}
	if !fg {
		return &RefusedError{Name: team.LeadName, Reason: Background, Detail: tg.Where()}
	}
	return nil
}

// kittyLead is the kitty window of the lead's record, while it exists
// and holds the lead (its process is the lead or one of its ancestors).
func kittyLead(ctx context.Context, rec *leadpane.Record) (Target, error) {
	bin, err := exec.LookPath("kitty")
	if err != nil {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "kitty, whose program is not on PATH here"}
	}
	w := &native.KittyWindow{Bin: bin, Addr: rec.KittyListenOn, ID: rec.KittyWindow}
	pid, fg, err := w.Processes(ctx)
	if errors.Is(err, native.ErrNoKittyWindow) {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: err.Error()}
	}
	if err != nil {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: "its kitty does not answer remote control: " + err.Error()}
	}
	if pid <= 0 || !slices.Contains(proc.Ancestors(rec.PID), pid) {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone,
			Detail: fmt.Sprintf("kitty window %s no longer holds the lead (process %d)", w.ID, rec.PID)}
	}
	tg := Target{Name: team.LeadName, Kitty: w, lead: rec.PID}
	if !slices.Contains(fg, rec.PID) {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Background, Detail: tg.Where()}
	}
	return tg, nil
}

// Screen is what the pane shows now, as text: no escape sequence of the
// pane's comes with it.
func (tg Target) Screen(ctx context.Context) (string, error) {
	if tg.Native != nil {
		return tg.Native.Text(ctx)
	}
	if tg.Kitty != nil {
		return tg.Kitty.Text(ctx)
	}
	return tg.Server.Screen(ctx, tg.Pane)
}

// kittyKeys are Keys as kitty's send-key names them, and the bytes
// Claude Code reads for each in kitty where send-key is missing (kitty
// 0.26). The lead behind a kitty record is always Claude Code, which
// turns on kitty's keyboard protocol with CSI > 5 u (disambiguate escape
// codes, report alternate keys): kitty then sends Esc as CSI 27 u and
// Shift-Tab as CSI 9;2 u, and Enter, Tab, Backspace, Space and the arrows
// as without the protocol (https://sw.kovidgoyal.net/kitty/keyboard-protocol/,
// "Disambiguate escape codes"): a lone ESC is what that mode is there to
// spare a program, which can tell it from a sequence's start only by
// waiting for more bytes.
var kittyKeys = map[string][2]string{
	"Enter": {"enter", "\r"}, "Esc": {"escape", "\x1b[27u"}, "Tab": {"tab", "\t"}, "Shift-Tab": {"shift+tab", "\x1b[9;2u"},
	"Space": {"space", " "}, "Backspace": {"backspace", "\x7f"},
	"Up": {"up", "\x1b[A"}, "Down": {"down", "\x1b[B"}, "Right": {"right", "\x1b[C"}, "Left": {"left", "\x1b[D"},
}

func (tg Target) key(ctx context.Context, k string) error {
	if tg.Native != nil {
		return tg.Native.Key(ctx, k)
	}
	if tg.Kitty == nil {
		return tg.Server.SendKey(ctx, tg.Pane, Keys[k])
	}
	if kk, ok := kittyKeys[k]; ok {
		return tg.Kitty.Key(ctx, kk[0], kk[1])
	}
	return tg.Kitty.Send(ctx, k) // a digit or a letter: itself
}

func (tg Target) text(ctx context.Context, text string) error {
	if tg.Native != nil {
		return tg.Native.Send(ctx, text)
	}
	if tg.Kitty != nil {
		return tg.Kitty.Send(ctx, text)
	}
	return tg.Server.SendLiteral(ctx, tg.Pane, text)
}

// Keys are the keys an answer may press, by the names the front ends
// use, with tmux's name of each: what a dialog takes (a digit to choose,
// y or n, Enter, Esc, the arrows, Tab), nothing that reaches past the
// program in the pane (no prefix key, no C-c, no C-z).
var Keys = map[string]string{
	"1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
	"y": "y", "n": "n",
	"Enter": "Enter", "Esc": "Escape", "Tab": "Tab", "Shift-Tab": "BTab", "Space": "Space", "Backspace": "BSpace",
	"Up": "Up", "Down": "Down", "Left": "Left", "Right": "Right",
}

// MaxText bounds a line typed in one answer.
const MaxText = 4096

// Input is one answer: keys pressed in order, or a line of text typed
// as it is, then Enter when asked.
type Input struct {
	Keys  []string
	Text  string
	Enter bool
}

// InputError is an answer that is not one.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Check says what is wrong with in, if anything: keys not in Keys, a
// text that is empty, too long, not UTF-8 or holds a control character
// (a line break, an escape: keys are pressed with Keys, not typed).
func (in Input) Check() error {
	if len(in.Keys) == 0 && in.Text == "" {
		return &InputError{"nothing to type: give keys or a line of text"}
	}
	if len(in.Keys) > 0 && in.Text != "" {
		return &InputError{"give keys or a line of text, not both"}
	}
	if len(in.Keys) > 16 {
		return &InputError{"at most 16 keys at once"}
	}
	for _, k := range in.Keys {
		if _, ok := Keys[k]; !ok {
			return &InputError{fmt.Sprintf("%q is not a key an answer may press", k)}
		}
	}
	if len(in.Text) > MaxText {
		return &InputError{fmt.Sprintf("the text is over %d bytes", MaxText)}
	}
	if !utf8.ValidString(in.Text) {
		return &InputError{"the text is not UTF-8"}
	}
	if i := strings.IndexFunc(in.Text, unicode.IsControl); i >= 0 {
		return &InputError{"the text holds a control character (a line break, an escape): type one line, and press keys with their buttons"}
	}
	return nil
}

// ready refuses to type into a pane where the keys would not reach the
// program alone, checked right before typing, and changes nothing of the
// person's: a tmux window with synchronize-panes on (send-keys, -l too,
// goes to every pane of it), a pane in copy mode or another mode (its
// bindings take the keys), a lead no longer in its terminal's
// foreground.
func (tg Target) ready(ctx context.Context) error {
	if tg.Native != nil {
		return leadInFront(tg.lead, tg.Where())
	}
	if tg.Kitty != nil {
		if tg.lead == 0 {
			return nil
		}
		_, fg, err := tg.Kitty.Processes(ctx)
		if err != nil {
			return &RefusedError{Name: tg.Name, Reason: Gone, Detail: err.Error()}
		}
		if !slices.Contains(fg, tg.lead) {
			return &RefusedError{Name: tg.Name, Reason: Background, Detail: tg.Where()}
		}
		return nil
	}
	p, err := tg.Server.PaneByID(ctx, tg.Pane)
	if err != nil {
		return gone(tg.Name, err)
	}
	switch {
	case p.Synchronized:
		return &RefusedError{Name: tg.Name, Reason: Synchronized, Detail: tg.Where()}
	case p.InMode:
		return &RefusedError{Name: tg.Name, Reason: InMode, Detail: tg.Where()}
	}
	if tg.lead != 0 {
		return tg.foreground(p.PID)
	}
	return nil
}

// Type types in into the pane: its keys, or its text literally and then
// Enter when asked.
func (tg Target) Type(ctx context.Context, in Input) error {
	if err := in.Check(); err != nil {
		return err
	}
	if err := tg.ready(ctx); err != nil {
		return err
	}
	for _, k := range in.Keys {
		if err := tg.key(ctx, k); err != nil {
			return err
		}
	}
	if in.Text != "" {
		if err := tg.text(ctx, in.Text); err != nil {
			return err
		}
	}
	if in.Enter {
		return tg.key(ctx, "Enter")
	}
	return nil
}
