package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/internal/ui/web"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// hostile is text a teammate could write: markup, a script end and a
// terminal escape. The page must show it as text and run none of it.
const hostile = "<img src=x onerror=\"window.pwned=1\"></script><script>window.pwned=2</script>\x1b[31mred"

// browser starts a headless Chromium of its own (a fresh profile, no
// network of its own making) that maps the name evil.test to 127.0.0.1,
// as a rebinding DNS would.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := testutil.RequireTool(t, "chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("host-resolver-rules", "MAP evil.test 127.0.0.1"),
		chromedp.WindowSize(390, 844), // a phone
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 20*time.Second)
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

const permID = "perm-1767225600000-abc1234"

// crewTeam is team crew with alice and bob: alice has written the lead
// a hostile message and asked to run a Bash command; task 1's subject is
// hostile too.
func crewTeam(t *testing.T) team.Team {
	now := time.Now()
	tm := teamtest.New(t, "crew", team.CreateOptions{Cwd: t.TempDir(), Now: now},
		teamtest.Like(team.Member{JoinedAt: now.UnixMilli()}, "alice", "bob")...)
	perm := `{"type":"permission_request","request_id":"` + permID + `","agent_id":"alice","tool_name":"Bash",` +
		`"tool_use_id":"toolu_01","description":"list","input":{"command":"ls -la /tmp"},"permission_suggestions":[]}`
	writeJSON(t, tm.InboxPath(team.LeadName), []mailbox.Message{
		{From: "alice", Text: hostile, Summary: hostile, Timestamp: mailbox.Timestamp(now), Color: "blue"},
		{From: "alice", Text: perm, Timestamp: mailbox.Timestamp(now), Color: "blue"},
	})
	writeJSON(t, filepath.Join(tm.TasksDir(), "1.json"), team.Task{ID: "1", Subject: hostile, Status: "pending",
		Blocks: []string{}, BlockedBy: []string{}})
	return tm
}

// serve runs paneteam web's server on tm in this process, on the real
// core operations and team watcher.
func serve(t *testing.T, tm team.Team, readOnly bool) (*httptest.Server, string) {
	t.Helper()
	tok, err := web.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	w := teamwatch.NewWatcher(tm, teamwatch.WatchOptions{})
	live := &web.Live{Team: tm, Caller: post.Caller{Getenv: func(string) string { return "" }}, ShutdownTimeout: 5 * time.Second}
	srv, err := web.New(web.Config{Team: tm.Name, Actions: live, Watch: w, Token: tok, ReadOnly: readOnly, Log: []io.Writer{&testLog{t}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Last: the watcher is closed once Run, which reads it, has returned
	// (a Watcher is one goroutine's).
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done; w.Close() })
	go func() { defer close(done); srv.Run(ctx) }()
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.BaseContext = func(net.Listener) context.Context { return ctx } // as Serve: its end ends the event streams
	hs.Start()
	t.Cleanup(hs.Close)
	t.Cleanup(cancel) // first: the streams end, then Close has nothing to wait for
	return hs, tok
}

// dump logs what the page shows, for a failure's report.
func dump(t *testing.T, ctx context.Context) {
	var html string
	chromedp.Do(ctx, into(chromedp.Evaluate[string](`location.href + "\n" + document.documentElement.outerHTML`), &html)) //nolint:errcheck
	t.Logf("the page:\n%s", html)
}

// into runs a, keeping its result in *p.
func into[T any](a chromedp.Action[T], p *T) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		v, err := a(ctx, t)
		*p = v
		return chromedp.Void{}, err
	}
}

func css(s string) chromedp.CSS { return chromedp.CSS(s) }

type testLog struct{ t *testing.T }

func (l *testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func TestBrowserShowsTheTeamAndActs(t *testing.T) {
	ctx := browser(t)
	tm := crewTeam(t)
	hs, tok := serve(t, tm, false)
	aliceInbox := tm.InboxPath("alice")

	var loc, taskText, msgText string
	var imgs, pwned int
	var sideways bool
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	err := chromedp.Do(wctx, chromedp.Navigate(hs.URL+"/?token="+tok), chromedp.WaitVisible(css(`li[data-member="alice"] .state-needs-you`)))
	wcancel()
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		into(chromedp.Location(), &loc),
		into(chromedp.Text(css(`li[data-task="1"] .subject`)), &taskText),
		into(chromedp.Text(css(`#messages`)), &msgText),
		into(chromedp.Evaluate[int](`document.querySelectorAll("img").length`), &imgs),
		into(chromedp.Evaluate[int](`window.pwned || 0`), &pwned),
		into(chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`), &sideways),
	)
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	if strings.Contains(loc, "token") {
		t.Errorf("the token stayed in the address bar: %s", loc)
	}
	if !strings.Contains(taskText, `<img src=x onerror="window.pwned=1"></script>`) {
		t.Errorf("the task's subject is not shown as text: %q", taskText)
	}
	if !strings.Contains(msgText, "<img src=x") {
		t.Errorf("alice's message is not shown as text: %q", msgText)
	}
	if strings.ContainsRune(taskText+msgText, '\x1b') {
		t.Errorf("an escape sequence reached the page raw")
	}
	if imgs != 0 || pwned != 0 {
		t.Errorf("teammates' text became markup: %d img elements, window.pwned=%d", imgs, pwned)
	}
	if sideways {
		t.Errorf("a phone-sized window scrolls sideways")
	}

	// Approve: the answer frame reaches alice's inbox, and alice no longer
	// needs you.
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(css(`li[data-request="`)+permID+`"] .subject`),
		chromedp.Click(css(`li[data-request="`)+permID+`"] button[aria-label="Approve"]`),
		chromedp.WaitNotPresent(css(`li[data-member="alice"] .state-needs-you`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	in := readFile(t, aliceInbox)
	if !strings.Contains(in, `permission_response`) || !strings.Contains(in, permID) || !strings.Contains(in, `success`) {
		t.Fatalf("alice's inbox has no approval of %s:\n%s", permID, in)
	}

	// Send: the message reaches bob's inbox.
	err = chromedp.Do(ctx,
		chromedp.SetValue(css(`#send-to`), "bob"),
		chromedp.SendKeys(css(`#send-text`), "please rebase on main"),
		chromedp.Click(css(`#send-form button[type="submit"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the page's message in bob's inbox", func() bool {
		return strings.Contains(readFile(t, tm.InboxPath("bob")), "please rebase on main")
	})
}

// TestBrowserRefusesStrangers: another origin (a page on another port of
// 127.0.0.1, the same site, whose browser holds the session cookie), a
// rebinding name, no token, and a read-only URL all write nothing.
func TestBrowserRefusesStrangers(t *testing.T) {
	ctx := browser(t)
	tm := crewTeam(t)
	hs, tok := serve(t, tm, false)
	_, port, _ := strings.Cut(strings.TrimPrefix(hs.URL, "http://"), ":")
	bobInbox := tm.InboxPath("bob")

	// Log in, so the cookie is there for the attacker's page to ride on.
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/?token="+tok), chromedp.WaitVisible(css(`li[data-member="alice"]`))); err != nil {
		t.Fatal(err)
	}
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form id=f method=POST action="%s/api/send" enctype="text/plain">`+
			`<input name='{"to":"bob","text":"forged","x":"' value='"}'></form>`+
			`<script>fetch("%s/api/send",{method:"POST",mode:"no-cors",credentials:"include",body:'{"to":"bob","text":"forged"}'});`+
			`setTimeout(()=>document.getElementById("f").submit(),300)</script>`, hs.URL, hs.URL)
	}))
	defer evil.Close()
	var body string
	err := chromedp.Do(ctx, chromedp.Navigate(evil.URL), into(chromedp.Text(css(`body`)), &body))
	if err != nil {
		t.Fatal(err)
	}
	// The form lands on our server's refusal page.
	testutil.Eventually(t, 5*time.Second, "the forged form refused", func() bool {
		var s string
		chromedp.Do(ctx, into(chromedp.Text(css(`body`)), &s)) //nolint:errcheck
		return strings.Contains(s, "another origin")
	})

	// A rebinding name with the right token, no token, a wrong token.
	for target, want := range map[string]string{
		"http://evil.test:" + port + "/?token=" + url.QueryEscape(tok): "does not answer to that Host",
		hs.URL + "/?token=wrong" + tok[5:]:                             "wrong token",
	} {
		var s string
		if err := chromedp.Do(ctx, chromedp.Navigate(target), into(chromedp.Text(css(`body`)), &s)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s, want) {
			t.Errorf("%s: page says %q, want %q", target, s, want)
		}
	}
	fresh := browser(t)
	var s string
	if err := chromedp.Do(fresh, chromedp.Navigate(hs.URL+"/"), into(chromedp.Text(css(`body`)), &s)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "no session") {
		t.Errorf("without the token the page says %q", s)
	}

	// The read-only URL sees the team, offers no button, and its page's
	// own request (with the anti-forgery token) is refused.
	ro, rotok := serve(t, tm, true)
	var buttons int
	var status string
	err = chromedp.Do(fresh, chromedp.Navigate(ro.URL+"/?token="+rotok), chromedp.WaitVisible(css(`li[data-member="alice"]`)),
		into(chromedp.Evaluate[int](`document.querySelectorAll("button").length`), &buttons),
		into(chromedp.Evaluate[string](`fetch("/api/send",{method:"POST",headers:{"Content-Type":"application/json",`+
			`"X-Paneteam-Csrf":document.querySelector('meta[name="paneteam-csrf"]').content},`+
			`body:JSON.stringify({to:"bob",text:"forged"})}).then(r=>String(r.status))`, chromedp.EvalAwaitPromise), &status),
	)
	if err != nil {
		t.Fatal(err)
	}
	if buttons != 0 {
		t.Errorf("the read-only page offers %d buttons", buttons)
	}
	if status != "403" {
		t.Errorf("the read-only page's POST answered %s, want 403", status)
	}
	if in := readFile(t, bobInbox); strings.Contains(in, "forged") {
		t.Fatalf("a refused request wrote into bob's inbox:\n%s", in)
	}
}

// serveTeams runs paneteam web's server on several teams, as paneteam
// web without --team does, each on its real core operations and watcher.
func serveTeams(t *testing.T, tms ...team.Team) (*httptest.Server, string) {
	t.Helper()
	tok, err := web.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	var boards []web.Board
	var watchers []*teamwatch.Watcher
	for _, tm := range tms {
		w := teamwatch.NewWatcher(tm, teamwatch.WatchOptions{})
		watchers = append(watchers, w)
		live := &web.Live{Team: tm, Caller: post.Caller{Getenv: func(string) string { return "" }}, ShutdownTimeout: 5 * time.Second}
		boards = append(boards, web.Board{Team: tm.Name, Actions: live, Watch: w})
	}
	srv, err := web.New(web.Config{Teams: boards, Token: tok, Log: []io.Writer{&testLog{t}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
		for _, w := range watchers {
			w.Close()
		}
	})
	go func() { defer close(done); srv.Run(ctx) }()
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	hs.Start()
	t.Cleanup(hs.Close)
	t.Cleanup(cancel)
	return hs, tok
}

// TestBrowserSwitchesTeams: with two teams under the root, the page
// shows the first, lists both, and its switch shows the second's members
// live; a message sent from there reaches the second team's inbox only.
func TestBrowserSwitchesTeams(t *testing.T) {
	ctx := browser(t)
	root := testutil.Root(t)
	now := time.Now()
	crew := teamtest.OnRoot(t, root, "crew", team.CreateOptions{Cwd: t.TempDir(), Now: now},
		teamtest.Like(team.Member{JoinedAt: now.UnixMilli()}, "alice")...)
	ops := teamtest.OnRoot(t, root, "ops", team.CreateOptions{Cwd: t.TempDir(), Now: now},
		teamtest.Like(team.Member{JoinedAt: now.UnixMilli()}, "carol")...)
	hs, tok := serveTeams(t, crew, ops)

	var heading, opsInbox string
	var aliceThere int
	var sideways bool
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	err := chromedp.Do(wctx,
		chromedp.Navigate(hs.URL+"/?token="+tok),
		chromedp.WaitVisible(css(`li[data-member="alice"]`)),
		chromedp.Click(css(`nav a[href="/?team=ops"]`)),
		chromedp.WaitVisible(css(`li[data-member="carol"]`)),
		into(chromedp.Text(css(`#team`)), &heading),
		into(chromedp.Evaluate[int](`document.querySelectorAll('li[data-member="alice"]').length`), &aliceThere),
		into(chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`), &sideways),
		chromedp.SendKeys(css(`#send-text`), "hello ops"),
		chromedp.Click(css(`#send-form button[type="submit"]`)),
	)
	wcancel()
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	if heading != "ops" || aliceThere != 0 {
		t.Errorf("after the switch the page shows team %q with %d of crew's alice", heading, aliceThere)
	}
	if sideways {
		t.Error("with the switch, the page scrolls sideways on a phone")
	}
	testutil.Eventually(t, 5*time.Second, "the message reaches ops's carol", func() bool {
		opsInbox = readFile(t, ops.InboxPath("carol"))
		return strings.Contains(opsInbox, "hello ops")
	})
	if crewInbox := readFile(t, crew.InboxPath("alice")); strings.Contains(crewInbox, "hello ops") {
		t.Errorf("the message for ops reached crew's alice too: %s", crewInbox)
	}
}
