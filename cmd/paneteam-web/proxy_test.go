package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestBehindAProxyTheURLIsTheProxys: on loopback with --host NAME (a
// tailscale serve in front), the URL to open, first, is the proxy's
// https://NAME/ with the token, and the same page on this machine
// follows it; a request that arrives through the proxy (Host NAME) gets
// in with that token.
func TestBehindAProxyTheURLIsTheProxys(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		cmd := webCmd(t, "--host", "devbox.tail1234.ts.net")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer stop(t, cmd)
		lines := readUntil(t, lineReader(out), "open the URL above")
		if !strings.HasPrefix(lines[0], "https://devbox.tail1234.ts.net/?token=") {
			t.Fatalf("the first line is not the proxy's URL: %q", lines[0])
		}
		text := strings.Join(lines, "\n")
		if !strings.Contains(text, "on this machine the same page is http://127.0.0.1:") {
			t.Fatalf("the URL on this machine is not said:\n%s", text)
		}
	})
	t.Run("json", func(t *testing.T) {
		cmd := webCmd(t, "--host", "devbox.tail1234.ts.net", "--json")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer stop(t, cmd)
		lines := readUntil(t, lineReader(out), `"url"`)
		var v struct {
			URL      string `json:"url"`
			LocalURL string `json:"localUrl"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &v); err != nil {
			t.Fatalf("--json printed %q: %v", lines, err)
		}
		open, err1 := url.Parse(v.URL)
		local, err2 := url.Parse(v.LocalURL)
		if err1 != nil || err2 != nil || open.Scheme != "https" || open.Host != "devbox.tail1234.ts.net" ||
			local.Scheme != "http" || !strings.HasPrefix(local.Host, "127.0.0.1:") || open.Query().Get("token") != local.Query().Get("token") {
			t.Fatalf("--json gave url %q and localUrl %q, want the proxy's and this machine's, one token", v.URL, v.LocalURL)
		}
		// As tailscale serve forwards it: to the local port, Host kept.
		req, err := http.NewRequest("GET", "http://"+local.Host+"/?token="+url.QueryEscape(open.Query().Get("token")), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = open.Host
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
			t.Fatalf("through the proxy's Host the token got %s, want a redirect with a session", resp.Status)
		}
		if len(resp.Cookies()) == 0 {
			t.Fatal("through the proxy's Host the token got no session cookie")
		}
	})
}
