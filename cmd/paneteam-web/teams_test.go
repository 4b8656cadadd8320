package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// TestWithoutTeamEveryTeamUnderTheRoot: 'paneteam web' without --team
// serves every team under the root behind its one URL, and the page
// opened with it switches between them; a team name that is not one of
// them is refused.
func TestWithoutTeamEveryTeamUnderTheRoot(t *testing.T) {
	bin := testutil.Tool(t, "paneteam-web", "./cmd/paneteam-web")
	root := testutil.Root(t)
	teamtest.OnRoot(t, root, "crew", team.CreateOptions{}, teamtest.Named("alice")...)
	teamtest.OnRoot(t, root, "ops", team.CreateOptions{}, teamtest.Named("carol")...)
	home := t.TempDir()
	cmd := exec.Command(bin, "web", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home+"/state", "XDG_CONFIG_HOME=", "PANETEAM_ROOT="+root,
		"PANETEAM_TEAM=", "TMUX=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stop(t, cmd)
	u := readUntil(t, lineReader(out), "open the URL above")[0]

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	page := func(target string) (int, string) {
		t.Helper()
		res, err := c.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := page(u)
	if code != http.StatusOK || !strings.Contains(body, `<span id="team">crew</span>`) {
		t.Fatalf("the URL opened %d, not team crew's page:\n%s", code, body)
	}
	for _, link := range []string{`href="/?team=crew"`, `href="/?team=ops"`} {
		if !strings.Contains(body, link) {
			t.Errorf("the page has no switch %s:\n%s", link, body)
		}
	}
	base := strings.SplitN(u, "?", 2)[0]
	if code, body := page(base + "?team=ops"); code != http.StatusOK || !strings.Contains(body, `<span id="team">ops</span>`) {
		t.Errorf("?team=ops gave %d, not ops's page:\n%s", code, body)
	}
	if code, _ := page(base + "?team=..%2Fcrew"); code != http.StatusNotFound {
		t.Errorf("?team=../crew gave %d, want 404", code)
	}
}
