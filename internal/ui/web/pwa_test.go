package web

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestServiceWorkerIsThePagesOwn: /sw.js is served at the root (its
// scope is the page) without a session, as JavaScript, with its version
// set; only to a Host the server answers to; and the CSP lets the page
// run a worker of its own origin only.
func TestServiceWorkerIsThePagesOwn(t *testing.T) {
	f := newFixture(t, nil)
	res := f.do(get("/sw.js"))
	var body bytes.Buffer
	body.ReadFrom(res.Body) //nolint:errcheck
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("/sw.js: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if strings.Contains(body.String(), "{{VERSION}}") || !strings.Contains(body.String(), `const VERSION = "`) {
		t.Errorf("/sw.js has no version of its own")
	}
	if res.Header.Get("Service-Worker-Allowed") != "" {
		t.Errorf("/sw.js widens its scope: %s", res.Header.Get("Service-Worker-Allowed"))
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "worker-src 'self'") || strings.Contains(csp, "blob:") {
		t.Errorf("the CSP does not keep workers to the page's origin: %s", csp)
	}
	r := get("/sw.js")
	r.Host = "evil.test"
	if res := f.do(r); res.StatusCode != http.StatusForbidden {
		t.Errorf("/sw.js under another Host: %d, want 403", res.StatusCode)
	}
	for _, p := range []string{"/static/offline.html", "/static/pwa.js", "/manifest.webmanifest"} {
		if res := f.do(get(p)); res.StatusCode != http.StatusOK {
			t.Errorf("%s, which the worker keeps: %d", p, res.StatusCode)
		}
	}
}
