package web_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/ui/web"
	"github.com/paneteam/paneteam/team"
)

// webProcess is paneteam web, the real program, started on a team.
type webProcess struct {
	URL string
	mu  sync.Mutex
	out bytes.Buffer // what it printed: the URL, then its action log
}

func (w *webProcess) said() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// startWeb runs paneteam-web web with args and waits for its URL.
func startWeb(t *testing.T, bin string, env []string, args ...string) *webProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"web", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	cmd.Stderr = &testLog{t}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT) //nolint:errcheck
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }() //nolint:errcheck
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() //nolint:errcheck
		}
	})
	w := &webProcess{}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			w.mu.Lock()
			fmt.Fprintln(&w.out, sc.Text())
			w.mu.Unlock()
			if strings.HasPrefix(sc.Text(), "http://") {
				select {
				case first <- sc.Text():
				default:
				}
			}
		}
	}()
	select {
	case w.URL = <-first:
	case <-time.After(20 * time.Second):
		t.Fatalf("paneteam web printed no URL:\n%s", w.said())
	}
	return w
}

// TestBrowserResumesAStoppedTeam: a team paneteam led in a real tmux
// loses its server and its lead. paneteam web (the real program) shows
// it stopped, with the members Resume starts again; another origin's
// forged Resume and a read-only page's are refused and start nothing;
// the page's Resume starts the teammate again in a tmux pane, as
// 'paneteam resume --team' does, says so, and logs it.
func TestBrowserResumesAStoppedTeam(t *testing.T) {
	testutil.RequireTool(t, "tmux")
	bin := testutil.Binary(t)
	webBin := testutil.Tool(t, "paneteam-web", "./cmd/paneteam-web")
	tmpdir := testutil.ShortTempDir(t)
	root := testutil.Root(t)
	env := testutil.Env("PANETEAM_ROOT="+root, "PANETEAM_STATE_DIR="+t.TempDir(), "TMUX_TMPDIR="+tmpdir,
		"PANETEAM_TMUX_CONFIG=/dev/null")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("paneteam %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	lead := exec.Command("sleep", "600")
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lead.Process.Kill(); lead.Wait() }) //nolint:errcheck
	crew := strings.TrimSpace(run("team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid)))
	file := filepath.Join(t.TempDir(), "echo")
	started := func() int { b, _ := os.ReadFile(file); return strings.Count(string(b), "started echo") }
	run("spawn-pane", "--team", crew, "--name", "echo", "--cwd", t.TempDir(), "--",
		"/bin/sh", "-c", `echo "started $PANETEAM_AGENT" >> "$0"; exec sleep 600`, file)
	testutil.Eventually(t, 10*time.Second, "echo to start", func() bool { return started() == 1 })
	_, cfg, err := team.Open(root, crew)
	if err != nil {
		t.Fatal(err)
	}
	socket := cfg.Paneteam.TmuxSocket
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() }) //nolint:errcheck
	if out, err := exec.Command("tmux", "-S", socket, "kill-server").CombinedOutput(); err != nil {
		t.Fatalf("kill the team's tmux server: %v %s", err, out)
	}
	lead.Process.Kill() //nolint:errcheck
	lead.Wait()         //nolint:errcheck

	// Its teammate's process ends on the server's hangup: once it has,
	// paneteam status offers the resume (each browser below has its own
	// 20 s, which a loaded machine should not spend waiting for that).
	testutil.Eventually(t, 15*time.Second, "paneteam status to offer the resume", func() bool {
		return strings.Contains(run("status", "--team", crew, "--json"), `"resumable"`)
	})
	full := startWeb(t, webBin, env, "--team", crew)
	ro := startWeb(t, webBin, env, "--team", crew, "--read-only")
	stopped := css(`#resume:not([hidden])`)

	// The read-only page shows the team stopped, offers no Resume, and
	// its own request is refused.
	robr := browser(t)
	var roWhat, roStatus string
	var roButtons int
	wctx, wcancel := context.WithTimeout(robr, 10*time.Second)
	err = chromedp.Do(wctx, chromedp.Navigate(ro.URL), chromedp.WaitVisible(stopped),
		into(chromedp.Text(css(`#resume-what`)), &roWhat),
		into(chromedp.Evaluate[int](`document.querySelectorAll("button").length`), &roButtons),
		into(chromedp.Evaluate[string](`fetch("/api/resume",{method:"POST",headers:{"Content-Type":"application/json",`+
			`"X-Paneteam-Csrf":document.querySelector('meta[name="paneteam-csrf"]').content},body:"{}"}).then(r=>String(r.status))`,
			chromedp.EvalAwaitPromise), &roStatus))
	wcancel()
	if err != nil {
		dump(t, robr)
		t.Fatal(err)
	}
	if !strings.Contains(roWhat, "Resume starts again: echo") || roButtons != 0 || roStatus != "403" {
		t.Errorf("the read-only page says %q with %d buttons, and its Resume answered %s (want 403)", roWhat, roButtons, roStatus)
	}

	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(full.URL), chromedp.WaitVisible(stopped)); err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	// A page of another origin, whose browser holds the session cookie.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := strings.SplitN(full.URL, "/?", 2)[0]
		fmt.Fprintf(w, `<!doctype html><script>fetch("%s/api/resume",{method:"POST",mode:"no-cors",credentials:"include",body:"{}"})`+
			`.finally(()=>document.title="sent")</script>`, u)
	}))
	defer evil.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(evil.URL), into(chromedp.Poll[bool](`document.title === "sent"`), new(bool))); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the forged Resume refused", func() bool {
		s := full.said()
		return strings.Contains(s, "/api/resume") && strings.Contains(s, "another origin")
	})
	if n := started(); n != 1 {
		t.Fatalf("a refused Resume started echo (%d starts)", n)
	}

	var status string
	err = chromedp.Do(ctx, chromedp.Navigate(strings.SplitN(full.URL, "?", 2)[0]), chromedp.WaitVisible(css(`#resume-button`)),
		into(chromedp.Evaluate[bool](`(window.confirm = () => true, true)`), new(bool)),
		chromedp.Click(css(`#resume-button`)),
		into(chromedp.Poll[string](`document.getElementById("resumed").textContent`), &status),
		chromedp.WaitNotPresent(stopped),
		chromedp.WaitVisible(css(`li[data-member="echo"] .state:not(.state-gone)`)))
	if err != nil {
		dump(t, ctx)
		t.Fatalf("%v; paneteam web said:\n%s", err, full.said())
	}
	if !strings.Contains(status, "crew/echo: started again in tmux pane %") {
		t.Errorf("after Resume the page says %q, want what 'paneteam resume' says", status)
	}
	testutil.Eventually(t, 10*time.Second, "echo to start again", func() bool { return started() == 2 })
	if s := full.said(); !strings.Contains(s, `"resume: crew/echo: started again in tmux pane %`) || !strings.Contains(s, `": "done"`) {
		t.Errorf("the Resume is not in paneteam web's log:\n%s", s)
	}
}

// TestResumeRefusesAsTheCommandLine: the page's Resume of a team Claude
// Code leads is refused, for the reason 'paneteam resume' gives, and
// starts nothing.
func TestResumeRefusesAsTheCommandLine(t *testing.T) {
	root := testutil.Root(t)
	testutil.ClaudeTeam(t, root, "session", testutil.DeadClaudeLead(t), testutil.ClaudePaneTeammate("ann", "%99"))
	tm, _, err := team.Open(root, "session")
	if err != nil {
		t.Fatal(err)
	}
	live := &web.Live{Team: tm, Resuming: resume.Options{Records: launches.Open(t.TempDir())}}
	lines, err := live.Resume(context.Background())
	var claude *resume.ClaudeTeamError
	if !errors.As(err, &claude) || len(lines) != 0 {
		t.Fatalf("the page resumed a team Claude Code leads: %v, %v", lines, err)
	}
}
