package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func (r *recorder) Resume(context.Context) ([]string, error) {
	r.add("resume")
	return []string{"crew/alice: started again in tmux pane %3"}, nil
}

// TestResumeIsAnActionLikeEveryOther: Resume is a POST of the page's own
// origin with the session's anti-forgery token, refused to a read-only
// session, and logged with what it started.
func TestResumeIsAnActionLikeEveryOther(t *testing.T) {
	f := newFixture(t, nil)
	c, csrf := f.login()
	if res := f.do(postJSON("/api/resume", `{}`, c, "")); res.StatusCode != http.StatusForbidden {
		t.Errorf("no anti-forgery token: %d, want 403", res.StatusCode)
	}
	r := postJSON("/api/resume", `{}`, c, csrf)
	r.Header.Del("Sec-Fetch-Site")
	r.Header.Set("Origin", "http://127.0.0.1:9999")
	if res := f.do(r); res.StatusCode != http.StatusForbidden {
		t.Errorf("Origin of another port: %d, want 403", res.StatusCode)
	}
	get := get("/api/resume")
	get.AddCookie(c)
	if res := f.do(get); res.StatusCode == http.StatusOK {
		t.Errorf("a GET resumed")
	}
	if d := f.acts.done(); len(d) > 0 {
		t.Fatalf("refused requests resumed: %v", d)
	}
	res := f.do(postJSON("/api/resume", `{}`, c, csrf))
	var ans map[string]string
	json.NewDecoder(res.Body).Decode(&ans) //nolint:errcheck
	if res.StatusCode != http.StatusOK || !strings.Contains(ans["ok"], "crew/alice: started again") {
		t.Fatalf("the page's Resume: %d %v", res.StatusCode, ans)
	}
	if d := f.acts.done(); len(d) != 1 || d[0] != "resume" {
		t.Errorf("acted %v, want the one resume", d)
	}
	if !strings.Contains(f.log.String(), `"resume: crew/alice: started again in tmux pane %3": "done"`) {
		t.Errorf("the resume is not logged with what it started:\n%s", f.log)
	}

	ro := newFixture(t, func(c *Config) { c.ReadOnly = true })
	c, csrf = ro.login()
	if res := ro.do(postJSON("/api/resume", `{}`, c, csrf)); res.StatusCode != http.StatusForbidden {
		t.Errorf("read-only resume: %d, want 403", res.StatusCode)
	}
	if d := ro.acts.done(); len(d) > 0 {
		t.Errorf("a read-only session resumed: %v", d)
	}
	if !strings.Contains(ro.log.String(), `"resume": "refused: a read-only session"`) {
		t.Errorf("the refusal is not logged:\n%s", ro.log)
	}
}
