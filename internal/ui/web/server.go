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

// Config is what a Server needs.
type Config struct {
	Team    string
	Actions Actions
	Watch   Snapshots
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
	hub      *hub
	page     *template.Template
	static   fs.FS
	hosts    map[string]bool

	mu         sync.Mutex
	token      string
	revokeTime time.Time
}

// New makes a server; Run follows the team, Handler serves it.
func New(cfg Config) (*Server, error) {
	if len(cfg.Token) < 22 { // 22 base64 characters are 132 bits
		return nil, errors.New("web: the token must carry at least 128 bits")
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
		log: &actionLog{out: cfg.Log, json: cfg.JSONLog, now: cfg.Now}, hub: newHub(), page: page, static: static,
		hosts: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}, token: cfg.Token}
	for _, h := range cfg.Hosts {
		s.hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
	}
	s.revokeTime = s.revokeStamp()
	return s, nil
}

// Run follows the team until ctx ends or the team is deleted, and
// watches for a revocation.
func (s *Server) Run(ctx context.Context) {
	if s.cfg.RevokeFile != "" {
		go s.watchRevoke(ctx)
	}
	s.hub.follow(ctx, s.cfg.Watch, s.cfg.Actions)
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
	s.hub.kick()
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

// Handler is the whole site, behind its guards (middleware.go).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(s.static)))
	mux.HandleFunc("GET /manifest.webmanifest", s.manifest)
	mux.HandleFunc("GET /{$}", s.withSession(s.index))
	mux.HandleFunc("GET /events", s.withSession(s.events))
	mux.HandleFunc("POST /api/answer", s.withAction(s.answer))
	mux.HandleFunc("POST /api/send", s.withAction(s.send))
	mux.HandleFunc("POST /api/stop", s.withAction(s.stop))
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.log.add("", r.RemoteAddr, r.Method+" "+r.URL.Path, "refused: a request from another origin")
		http.Error(w, "refused: this request came from another origin", http.StatusForbidden)
	}))
	return s.guardHost(headers(cop.Handler(mux)))
}
