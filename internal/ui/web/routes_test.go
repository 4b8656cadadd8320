package web

import (
	"net/http"
	"strings"
	"testing"
)

// actionBodies is a body each POST /api/ route acts on when every guard
// lets it through: a route missing here fails the test, so that a new
// one is walked too.
var actionBodies = map[string]string{
	"/api/answer": `{"id":"perm-1","from":"alice","approve":true}`,
	"/api/send":   `{"to":"alice","text":"hi"}`,
	"/api/stop":   `{"name":"alice"}`,
	"/api/resume": `{}`,
	"/api/pane":   `{"name":"alice","keys":["1","Enter"]}`,
}

// TestEveryActionIsGuarded walks every registered POST /api/ route with
// a stand-in that implements every method the routes call (Actions and
// Panes): without a session, with a wrong anti-forgery token, from
// another origin, from a read-only session and for a team the server does
// not show, each is refused and nothing is done; the page's own request
// is done once.
func TestEveryActionIsGuarded(t *testing.T) {
	var paths []string
	for _, rt := range (&Server{}).routes() {
		if path, ok := strings.CutPrefix(rt.pattern, "POST "); ok {
			paths = append(paths, path)
		} else if strings.Contains(rt.pattern, "/api/") {
			t.Errorf("route %q: the API takes POSTs only", rt.pattern)
		}
	}
	if len(paths) < len(actionBodies) {
		t.Fatalf("routes %v: fewer than the bodies here know", paths)
	}
	for _, path := range paths {
		body, ok := actionBodies[path]
		if !ok {
			t.Errorf("%s has no body in actionBodies: add one, so its guards are tested", path)
			continue
		}
		t.Run(strings.TrimPrefix(path, "/api/"), func(t *testing.T) {
			f := newFixture(t, nil)
			c, csrf := f.login()
			ro := newFixture(t, func(c *Config) { c.ReadOnly = true; c.Actions = f.acts })
			roC, roCSRF := ro.login()
			for _, k := range []struct {
				what string
				fx   *fixture
				req  *http.Request
				want int
			}{
				{"no session", f, postJSON(path, body, nil, csrf), http.StatusUnauthorized},
				{"no anti-forgery token", f, postJSON(path, body, c, ""), http.StatusForbidden},
				{"a wrong anti-forgery token", f, postJSON(path, body, c, csrf[:len(csrf)-1]+"x"), http.StatusForbidden},
				{"another origin", f, crossOrigin(postJSON(path, body, c, csrf)), http.StatusForbidden},
				{"a same-site page", f, sameSite(postJSON(path, body, c, csrf)), http.StatusForbidden},
				{"a read-only session", ro, postJSON(path, body, roC, roCSRF), http.StatusForbidden},
				{"a team not shown", f, postJSON(path+"?team=..%2Fops", body, c, csrf), http.StatusNotFound},
			} {
				if res := k.fx.do(k.req); res.StatusCode != k.want {
					t.Errorf("%s: %d, want %d", k.what, res.StatusCode, k.want)
				}
				if d := f.acts.done(); len(d) > 0 {
					t.Fatalf("%s: acted %v", k.what, d)
				}
			}
			if res := f.do(postJSON(path, body, c, csrf)); res.StatusCode != http.StatusOK {
				t.Errorf("the page's own request: %d", res.StatusCode)
			}
			if d := f.acts.done(); len(d) != 1 {
				t.Errorf("the page's own request did %v, want one thing", d)
			}
		})
	}
}

func crossOrigin(r *http.Request) *http.Request {
	r.Header.Del("Sec-Fetch-Site")
	r.Header.Set("Origin", "http://127.0.0.1:9999")
	return r
}

func sameSite(r *http.Request) *http.Request {
	r.Header.Set("Sec-Fetch-Site", "same-site")
	return r
}
