// Package web is paneteam's page in a browser (paneteam web): the team
// live, pushed from the team watcher over Server-Sent Events, and the
// lead's answers, messages and stops, each through the core operation the
// command line uses. It is the most exposed part of paneteam, since
// approving a tool call runs code as the person: docs/WEB.md is its
// security model, and every rule there is enforced in this package's
// handlers (middleware.go, auth.go).
package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
)

//go:embed assets
var assets embed.FS

// Snapshots is the team watcher (teamwatch.Watcher): each Next blocks
// until the team changed.
type Snapshots interface {
	Next(ctx context.Context) (*teamwatch.Snapshot, []teamwatch.Event, error)
}

// Board is one team the server shows: its name, how to act on it and
// its watcher.
type Board struct {
	Team    string
	Actions Actions
	Watch   Snapshots
}

// Config is what a Server needs.
type Config struct {
	// Team, Actions and Watch are the one team shown, unless Teams names
	// several (paneteam web without --team: every team under the root).
	Team    string
	Actions Actions
	Watch   Snapshots
	// Teams, when set, are the teams the page switches between, the first
	// shown unless a request names another. A request names a team only
	// by a name looked up here: nothing it sends becomes a path.
	Teams []Board
	// Token is the secret of the first URL (?token=); a browser that
	// brings it gets a session.
	Token string
	// ReadOnly makes every session one that sees and can do nothing.
	ReadOnly bool
	// TLS marks the session cookie Secure.
	TLS bool
	// Hosts are the names the Host header may carry, besides the loopback
	// ones (localhost, 127.0.0.1, ::1), which are always allowed.
	Hosts []string
	// SessionTTL is how long a session lives (DefaultSessionTTL if zero).
	SessionTTL time.Duration
	// GuessDelay is the first wrong token's wait, doubled per failure in
	// a row up to GuessMax (DefaultGuessDelay, DefaultGuessMax if zero).
	GuessDelay, GuessMax time.Duration
	// Log receives every action and refusal; JSONLog writes them as JSON.
	Log     []io.Writer
	JSONLog bool
	// RevokeFile: when its modification time changes, every session ends
	// and a new token is made (paneteam web --revoke touches it).
	RevokeFile string
	// NewToken is told the token made after a revocation.
	NewToken func(token string)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Defaults of a Config.
const (
	DefaultSessionTTL = 12 * time.Hour
	DefaultGuessDelay = 250 * time.Millisecond
	DefaultGuessMax   = 8 * time.Second
	// cookieName is the session cookie.
	cookieName = "paneteam_session"
	// csrfHeader carries a session's anti-forgery token on every POST: a
	// page of another origin can set no such header without a CORS
	// preflight, which this server never answers.
	csrfHeader = "X-Paneteam-Csrf"
	// maxBody bounds what a POST may send (a message, a plan's feedback).
	maxBody = 64 << 10
)

// Server serves one team's page.
type Server struct {
	cfg      Config
	sessions *sessions
	guesses  guesses
	log      *actionLog
	boards   map[string]*board
	order    []string // the teams' names, as the page lists them
	page     *template.Template
	static   fs.FS
	hosts    map[string]bool

	mu         sync.Mutex
	token      string
	revokeTime time.Time
}

// board is one team's live view.
type board struct {
	Board
	hub   *hub
	typed typed // rung after an answer is typed into a pane (panes.go)
}

// New makes a server; Run follows the teams, Handler serves them.
func New(cfg Config) (*Server, error) {
	if len(cfg.Token) < 22 { // 22 base64 characters are 132 bits
		return nil, errors.New("web: the token must carry at least 128 bits")
	}
	if len(cfg.Teams) == 0 {
		cfg.Teams = []Board{{Team: cfg.Team, Actions: cfg.Actions, Watch: cfg.Watch}}
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.GuessDelay <= 0 {
		cfg.GuessDelay = DefaultGuessDelay
	}
	if cfg.GuessMax <= 0 {
		cfg.GuessMax = DefaultGuessMax
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	page, err := template.ParseFS(assets, "assets/index.html")
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, sessions: newSessions(cfg.SessionTTL), guesses: guesses{base: cfg.GuessDelay, maxDur: cfg.GuessMax},
		log: &actionLog{out: cfg.Log, json: cfg.JSONLog, now: cfg.Now}, boards: map[string]*board{}, page: page, static: static,
		hosts: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}, token: cfg.Token}
	for _, b := range cfg.Teams {
		if b.Team == "" || s.boards[b.Team] != nil {
			return nil, fmt.Errorf("web: team %q is empty or given twice", b.Team)
		}
		s.boards[b.Team] = &board{Board: b, hub: newHub()}
		s.order = append(s.order, b.Team)
	}
	for _, h := range cfg.Hosts {
		s.hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
	}
	s.revokeTime = s.revokeStamp()
	return s, nil
}

// Run follows each team until ctx ends (a deleted team's page says so),
// and watches for a revocation. It returns once every watcher is left
// alone (a Watcher is one goroutine's, and its owner closes it after).
func (s *Server) Run(ctx context.Context) {
	if s.cfg.RevokeFile != "" {
		go s.watchRevoke(ctx)
	}
	var wg sync.WaitGroup
	for _, b := range s.boards {
		wg.Add(1)
		go func() { defer wg.Done(); b.hub.follow(ctx, b.Watch, b.Actions) }()
	}
	wg.Wait()
}

// boardOf is the team a request names with ?team= (the first team when
// it names none), looked up among the server's own: a name that is not
// one of them is refused, so no text of the request reaches a path.
func (s *Server) boardOf(r *http.Request) (*board, error) {
	name := r.URL.Query().Get("team")
	if name == "" {
		return s.boards[s.order[0]], nil
	}
	if b := s.boards[name]; b != nil {
		return b, nil
	}
	return nil, fmt.Errorf("no team %q here: paneteam web shows %s", name, strings.Join(s.order, ", "))
}

// revokeCheck is how often the revocation file is looked at: a stat, so
// the server stays idle in any sense that matters.
const revokeCheck = time.Second

func (s *Server) watchRevoke(ctx context.Context) {
	t := time.NewTicker(revokeCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.checkRevoked()
		}
	}
}

func (s *Server) revokeStamp() time.Time {
	if s.cfg.RevokeFile == "" {
		return time.Time{}
	}
	fi, err := os.Stat(s.cfg.RevokeFile)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// checkRevoked ends every session and makes a new token when the
// revocation file changed since last seen.
func (s *Server) checkRevoked() {
	stamp := s.revokeStamp()
	s.mu.Lock()
	if stamp.Equal(s.revokeTime) {
		s.mu.Unlock()
		return
	}
	s.revokeTime = stamp
	tok, err := NewToken()
	if err == nil {
		s.token = tok
	}
	s.mu.Unlock()
	n := s.sessions.clear()
	for _, b := range s.boards {
		b.hub.kick()
	}
	s.log.add("", "-", "revoke", strings.TrimSpace(plural(n, "session")+" ended; the old URL no longer works"))
	if err == nil && s.cfg.NewToken != nil {
		s.cfg.NewToken(tok)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func (s *Server) currentToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

// route is one pattern the site serves and its handler, guards included.
type route struct {
	pattern string
	handler http.Handler
}

// routes is every route of the site: Handler serves these and no other,
// and the tests walk them (every POST /api/ one must refuse what
// withAction refuses).
func (s *Server) routes() []route {
	return []route{
		{"GET /static/", http.StripPrefix("/static/", http.FileServerFS(s.static))},
		{"GET /manifest.webmanifest", http.HandlerFunc(s.manifest)},
		{"GET /sw.js", http.HandlerFunc(s.serviceWorker)},
		{"GET /{$}", s.withSession(s.index)},
		{"GET /events", s.withSession(s.events)},
		{"POST /api/answer", s.withAction(s.answer)},
		{"POST /api/send", s.withAction(s.send)},
		{"POST /api/stop", s.withAction(s.stop)},
		{"POST /api/resume", s.withAction(s.resume)},
		{"POST /api/pane", s.withAction(s.pane)},
	}
}

// Handler is the whole site, behind its guards (middleware.go).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.Handle(rt.pattern, rt.handler)
	}
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.log.add("", r.RemoteAddr, r.Method+" "+r.URL.Path, "refused: a request from another origin")
		http.Error(w, "refused: this request came from another origin", http.StatusForbidden)
	}))
	return s.guardHost(headers(cop.Handler(mux)))
}
