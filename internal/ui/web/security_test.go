package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
)

// recorder is Actions that only records what it was asked to do: a
// refused request must leave it empty.
type recorder struct {
	mu       sync.Mutex
	did      []string
	screens  []string                 // panes read, by member
	reaches  int                      // passes over the panes (Reach calls)
	screenOf func(name string) string // what a pane shows; nil: "the screen of NAME"
}

func (r *recorder) add(s string) { r.mu.Lock(); r.did = append(r.did, s); r.mu.Unlock() }
func (r *recorder) done() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.did...)
}
func (r *recorder) Requests(context.Context) ([]approval.Request, error) { return nil, nil }
func (r *recorder) Answer(_ context.Context, id, from string, d approval.Decision) error {
	r.add("answer " + id + " " + from)
	return nil
}
func (r *recorder) Send(_ context.Context, to, text string) error {
	r.add("send " + to + " " + text)
	return nil
}
func (r *recorder) Stop(_ context.Context, name string) (string, error) {
	r.add("stop " + name)
	return "stopped", nil
}

// still is a watcher whose team never changes.
type still struct{}

func (still) Next(ctx context.Context) (*teamwatch.Snapshot, []teamwatch.Event, error) {
	<-ctx.Done()
	return nil, nil, ctx.Err()
}

const testToken = "tok-0123456789abcdefghijklmnopqrstuvwxyz"

type fixture struct {
	t    *testing.T
	srv  *Server
	h    http.Handler
	acts *recorder
	log  *bytes.Buffer
	now  time.Time
}

func newFixture(t *testing.T, mod func(*Config)) *fixture {
	f := &fixture{t: t, acts: &recorder{}, log: &bytes.Buffer{}, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	cfg := Config{Team: "crew", Actions: f.acts, Watch: still{}, Token: testToken, Log: []io.Writer{f.log},
		GuessDelay: 20 * time.Millisecond, GuessMax: 40 * time.Millisecond, Now: func() time.Time { return f.now }}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.h = s, s.Handler()
	return f
}

func (f *fixture) do(r *http.Request) *http.Response {
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w.Result()
}

func get(target string) *http.Request {
	r := httptest.NewRequest("GET", target, nil)
	r.Host = "127.0.0.1:7480"
	return r
}

// login exchanges the token for a session cookie and the page's
// anti-forgery token.
func (f *fixture) login() (*http.Cookie, string) {
	f.t.Helper()
	res := f.do(get("/?token=" + testToken))
	if res.StatusCode != http.StatusSeeOther {
		f.t.Fatalf("login: %d", res.StatusCode)
	}
	c := res.Cookies()[0]
	r := get("/")
	r.AddCookie(c)
	page := f.do(r)
	var buf bytes.Buffer
	buf.ReadFrom(page.Body) //nolint:errcheck
	_, rest, _ := strings.Cut(buf.String(), `name="paneteam-csrf" content="`)
	csrf, _, _ := strings.Cut(rest, `"`)
	if csrf == "" {
		f.t.Fatalf("the page carries no anti-forgery token:\n%s", buf.String())
	}
	return c, csrf
}

func postJSON(path, body string, c *http.Cookie, csrf string) *http.Request {
	r := httptest.NewRequest("POST", path, strings.NewReader(body))
	r.Host = "127.0.0.1:7480"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	if c != nil {
		r.AddCookie(c)
	}
	if csrf != "" {
		r.Header.Set(csrfHeader, csrf)
	}
	return r
}

func TestTokenBecomesACookieAndLeavesTheAddress(t *testing.T) {
	f := newFixture(t, nil)
	res := f.do(get("/?token=" + testToken))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want a redirect", res.StatusCode)
	}
	if loc := res.Header.Get("Location"); strings.Contains(loc, "token") || loc != "/" {
		t.Errorf("redirect to %q: the token must leave the address", loc)
	}
	c := res.Cookies()
	if len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Secure {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, not Secure over plain HTTP", c)
	}
	if len(c[0].Value) < 43 {
		t.Errorf("session id %q is shorter than 256 bits", c[0].Value)
	}
	ft := newFixture(t, func(c *Config) { c.TLS = true })
	if c := ft.do(get("/?token=" + testToken)).Cookies(); len(c) != 1 || !c[0].Secure {
		t.Errorf("over TLS the cookie must be Secure: %+v", c)
	}
}

func TestRefusedWithoutTheToken(t *testing.T) {
	f := newFixture(t, nil)
	for _, target := range []string{"/", "/events"} {
		if res := f.do(get(target)); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %d, want 401", target, res.StatusCode)
		}
	}
	if res := f.do(postJSON("/api/send", `{"to":"alice","text":"hi"}`, nil, "")); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without a session: %d, want 401", res.StatusCode)
	}
	start := time.Now()
	if res := f.do(get("/?token=wrong-" + testToken[6:])); res.StatusCode != http.StatusForbidden {
		t.Errorf("a wrong token: %d, want 403", res.StatusCode)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("a wrong token was answered in %v: guessing must be slowed", d)
	}
	r := get("/")
	r.AddCookie(&http.Cookie{Name: cookieName, Value: "guessed-session"})
	if res := f.do(r); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a guessed session: %d, want 401", res.StatusCode)
	}
	if !strings.Contains(f.log.String(), "wrong token") || !strings.Contains(f.log.String(), "unknown or expired session") {
		t.Errorf("guesses are not logged:\n%s", f.log)
	}
	if d := f.acts.done(); len(d) > 0 {
		t.Errorf("refused requests acted: %v", d)
	}
}

func TestWrongHostIsRefused(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Hosts = []string{"devbox.example.ts.net"} })
	for host, want := range map[string]int{
		"evil.example:7480": http.StatusForbidden, "127.0.0.1.evil.example": http.StatusForbidden,
		"localhost:7480": http.StatusSeeOther, "[::1]:7480": http.StatusSeeOther, "devbox.example.ts.net": http.StatusSeeOther,
	} {
		r := get("/?token=" + testToken)
		r.Host = host
		if res := f.do(r); res.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, res.StatusCode, want)
		}
	}
}

func TestChangesNeedTheSameOriginAndTheAntiForgeryToken(t *testing.T) {
	f := newFixture(t, nil)
	c, csrf := f.login()
	body := `{"to":"alice","text":"hi"}`
	if res := f.do(postJSON("/api/send", body, c, "")); res.StatusCode != http.StatusForbidden {
		t.Errorf("no anti-forgery token: %d, want 403", res.StatusCode)
	}
	if res := f.do(postJSON("/api/send", body, c, csrf[:len(csrf)-1]+"x")); res.StatusCode != http.StatusForbidden {
		t.Errorf("a wrong anti-forgery token: %d, want 403", res.StatusCode)
	}
	for _, site := range []string{"cross-site", "same-site"} {
		r := postJSON("/api/send", body, c, csrf)
		r.Header.Set("Sec-Fetch-Site", site)
		if res := f.do(r); res.StatusCode != http.StatusForbidden {
			t.Errorf("Sec-Fetch-Site %s: %d, want 403", site, res.StatusCode)
		}
	}
	r := postJSON("/api/send", body, c, csrf)
	r.Header.Del("Sec-Fetch-Site")
	r.Header.Set("Origin", "http://127.0.0.1:9999") // another port: the same site, another origin
	if res := f.do(r); res.StatusCode != http.StatusForbidden {
		t.Errorf("Origin of another port: %d, want 403", res.StatusCode)
	}
	ev := get("/events")
	ev.AddCookie(c)
	ev.Header.Set("Sec-Fetch-Site", "same-site")
	ev.Header.Set("Sec-Fetch-Mode", "cors")
	if res := f.do(ev); res.StatusCode != http.StatusForbidden {
		t.Errorf("the event stream read from another origin: %d, want 403", res.StatusCode)
	}
	if d := f.acts.done(); len(d) > 0 {
		t.Fatalf("refused requests acted: %v", d)
	}
	if res := f.do(postJSON("/api/send", body, c, csrf)); res.StatusCode != http.StatusOK {
		t.Fatalf("the page's own request: %d", res.StatusCode)
	}
	if d := f.acts.done(); len(d) != 1 || d[0] != "send alice hi" {
		t.Errorf("acted %v, want the one send", d)
	}
	if !strings.Contains(f.log.String(), `"send to alice": "done"`) {
		t.Errorf("the action is not logged:\n%s", f.log)
	}
}

func TestReadOnlyCanDoNothing(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.ReadOnly = true })
	c, csrf := f.login()
	for path, body := range map[string]string{
		"/api/send": `{"to":"alice","text":"hi"}`, "/api/stop": `{"name":"alice"}`,
		"/api/answer": `{"id":"perm-1","from":"alice","approve":true}`,
	} {
		if res := f.do(postJSON(path, body, c, csrf)); res.StatusCode != http.StatusForbidden {
			t.Errorf("read-only %s: %d, want 403", path, res.StatusCode)
		}
	}
	if d := f.acts.done(); len(d) > 0 {
		t.Errorf("a read-only session acted: %v", d)
	}
	r := get("/")
	r.AddCookie(c)
	var buf bytes.Buffer
	buf.ReadFrom(f.do(r).Body) //nolint:errcheck
	if strings.Contains(buf.String(), "<button") || !strings.Contains(buf.String(), "read-only") {
		t.Errorf("the read-only page offers a button or does not say it is read-only")
	}
}

func TestHeadersForbidFramingInlineScriptAndCrossOriginReads(t *testing.T) {
	f := newFixture(t, nil)
	c, _ := f.login()
	r := get("/")
	r.AddCookie(c)
	r.Header.Set("Origin", "http://evil.example")
	res := f.do(r)
	h := res.Header
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows inline script: %q", csp)
	}
	if h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("framing or referrer headers missing: %v", h)
	}
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("a CORS header is set: %s", k)
		}
	}
	var buf bytes.Buffer
	buf.ReadFrom(res.Body) //nolint:errcheck
	if strings.Contains(buf.String(), "<script>") || strings.Contains(buf.String(), " on") && strings.Contains(buf.String(), "onclick") {
		t.Errorf("the page has inline script")
	}
}

func TestSessionsExpireAndRevoke(t *testing.T) {
	dir := t.TempDir()
	revoke := filepath.Join(dir, RevokeName)
	var renewed string
	f := newFixture(t, func(c *Config) {
		c.SessionTTL = time.Hour
		c.RevokeFile = revoke
		c.NewToken = func(tok string) { renewed = tok }
	})
	c, _ := f.login()
	page := func() int {
		r := get("/")
		r.AddCookie(c)
		return f.do(r).StatusCode
	}
	if page() != http.StatusOK {
		t.Fatal("a fresh session is refused")
	}
	f.now = f.now.Add(61 * time.Minute)
	if page() != http.StatusUnauthorized {
		t.Error("a session past its TTL is still let in")
	}
	c, _ = f.login()
	if err := os.WriteFile(revoke, []byte("now"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.srv.checkRevoked()
	if page() != http.StatusUnauthorized {
		t.Error("a revoked session is still let in")
	}
	if res := f.do(get("/?token=" + testToken)); res.StatusCode != http.StatusForbidden {
		t.Errorf("the old token after --revoke: %d, want 403", res.StatusCode)
	}
	if renewed == "" || renewed == testToken {
		t.Fatalf("no new token after a revocation")
	}
	if res := f.do(get("/?token=" + url.QueryEscape(renewed))); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the new token: %d", res.StatusCode)
	}
}

// TestTeamIsChosenOnlyAmongTheServersOwn: with two teams, a request
// names its team by ?team=, acts on that team alone, and a name that is
// not one of the server's teams (a path, another root's team) is refused
// with nothing done, on the page, the event stream and every change.
func TestTeamIsChosenOnlyAmongTheServersOwn(t *testing.T) {
	other := &recorder{}
	f := newFixture(t, func(c *Config) {
		c.Teams = []Board{{Team: "crew", Actions: c.Actions, Watch: still{}}, {Team: "ops", Actions: other, Watch: still{}}}
	})
	c, csrf := f.login()
	if res := f.do(postJSON("/api/send?team=ops", `{"to":"bob","text":"hi"}`, c, csrf)); res.StatusCode != http.StatusOK {
		t.Fatalf("send to team ops: %d", res.StatusCode)
	}
	if got := other.done(); len(got) != 1 || got[0] != "send bob hi" {
		t.Errorf("team ops did %q, want the one send", got)
	}
	if got := f.acts.done(); len(got) != 0 {
		t.Errorf("team crew acted on another team's request: %q", got)
	}
	if !strings.Contains(f.log.String(), "ops: send to bob") {
		t.Errorf("the action log does not say which team:\n%s", f.log.String())
	}
	for _, bad := range []string{"../ops", "ops/../crew", "OPS", "nope", "..%2F..%2Fetc"} {
		for _, path := range []string{"/api/send", "/api/stop", "/api/answer"} {
			res := f.do(postJSON(path+"?team="+bad, `{"to":"bob","text":"hi","name":"bob","id":"x","from":"bob"}`, c, csrf))
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("%s?team=%s: %d, want 404", path, bad, res.StatusCode)
			}
		}
		for _, path := range []string{"/", "/events"} {
			// Bounded: a stream wrongly served would run until its
			// request ends.
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			r := get(path + "?team=" + bad).WithContext(ctx)
			r.AddCookie(c)
			res := f.do(r)
			cancel()
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s?team=%s: %d, want 404", path, bad, res.StatusCode)
			}
		}
	}
	if got := append(f.acts.done(), other.done()[1:]...); len(got) != 0 {
		t.Errorf("a team that is not the server's was acted on: %q", got)
	}
}
