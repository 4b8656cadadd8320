package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"sync/atomic"
	"time"
)

// tokenBytes is the size of every secret the server makes: the URL's
// token, a session's id and its anti-forgery token. 32 bytes is 256 bits,
// twice the 128 the security model asks for.
const tokenBytes = 32

// NewToken returns a fresh random secret, URL-safe.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func equal(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// session is one browser that came with the token.
type session struct {
	id       string
	csrf     string // the anti-forgery token the page sends with every POST
	readOnly bool
	addr     string // where it logged in from
	created  time.Time
	expires  time.Time
	looks    int // event streams reading a pane (?look=), under sessions.mu
}

// short is how the log names a session: enough to tell two apart,
// nothing that lets a reader of the log use it.
func (s *session) short() string { return s.id[:8] }

// sessions holds the logged-in browsers, in memory only: a restart or a
// revocation logs every browser out.
type sessions struct {
	mu  sync.Mutex
	all map[string]*session
	ttl time.Duration
}

func newSessions(ttl time.Duration) *sessions {
	return &sessions{all: map[string]*session{}, ttl: ttl}
}

func (ss *sessions) create(addr string, readOnly bool, now time.Time) (*session, error) {
	id, err := NewToken()
	if err != nil {
		return nil, err
	}
	csrf, err := NewToken()
	if err != nil {
		return nil, err
	}
	s := &session{id: id, csrf: csrf, readOnly: readOnly, addr: addr, created: now, expires: now.Add(ss.ttl)}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for k, o := range ss.all { // drop the expired as new ones come
		if !now.Before(o.expires) {
			delete(ss.all, k)
		}
	}
	ss.all[id] = s
	return s, nil
}

// find returns the live session of id, nil when there is none or it
// has expired. The map's lookup is by the secret itself, so its timing
// says nothing about how much of a guess was right: a Go map hashes the
// whole key before comparing.
// maxLooks is how many event streams of one session may read a pane at
// once: each reads its pane every paneRefresh, and the page needs one.
const maxLooks = 4

// takeLook counts one more stream of s reading a pane; false when s has
// maxLooks already. dropLook gives it back.
func (ss *sessions) takeLook(s *session) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s.looks >= maxLooks {
		return false
	}
	s.looks++
	return true
}

func (ss *sessions) dropLook(s *session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s.looks--
}

func (ss *sessions) find(id string, now time.Time) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.all[id]
	if s == nil {
		return nil
	}
	if !now.Before(s.expires) {
		delete(ss.all, id)
		return nil
	}
	return s
}

// clear ends every session and says how many there were.
func (ss *sessions) clear() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	n := len(ss.all)
	ss.all = map[string]*session{}
	return n
}

// guesses slows whoever presents a wrong token or session: every wrong
// one waits its turn behind one lock, for a delay that doubles with the
// failures in a row (to a cap), so guesses cannot be run in parallel and
// come at most one per delay. A right token never waits.
type guesses struct {
	turn   sync.Mutex
	fails  atomic.Int64
	base   time.Duration
	maxDur time.Duration
}

func (g *guesses) wrong() (n int64, waited time.Duration) {
	n = g.fails.Add(1)
	d := g.base << min(n-1, 20)
	if d <= 0 || d > g.maxDur {
		d = g.maxDur
	}
	g.turn.Lock()
	defer g.turn.Unlock()
	time.Sleep(d)
	return n, d
}

func (g *guesses) right() { g.fails.Store(0) }
