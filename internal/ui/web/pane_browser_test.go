package web_test

import (
	"context"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paneteam/paneteam/internal/core/panedialog"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/ui/web"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// dialog is what a teammate's pane shows while it asks: markup, a script
// end and a terminal escape among its words, then the choices.
const dialog = `printf '%s asks: <img src=x onerror="window.pwned=3"></script> \033[31mred\033[0m\n 1. Yes\n 2. No\n' "$2"
printf '%0150d\n' 0
while IFS= read -r l; do printf 'got:%s\n' "$l" >>"$1"; done
`

// paneCrew is team crew, made by paneteam in a private tmux server: alice
// and bob started by 'paneteam spawn-pane', each running dialog (every
// line it reads goes to its log), and mallory, a pane made on the server
// directly, running the same, that a member row names as if paneteam had
// started it. alice and mallory are marked as asking in their panes.
type paneCrew struct {
	tm    team.Team
	srv   tmux.Server
	vars  []string
	panes map[string]string // member: its pane
	logs  map[string]string // member: the file its pane's lines go to
}

// getenv reads the lead's environment as a child process gets it (the
// last of a name wins).
func (c *paneCrew) getenv(k string) string {
	v := ""
	for _, kv := range c.vars {
		if key, val, _ := strings.Cut(kv, "="); key == k {
			v = val
		}
	}
	return v
}

// pt runs the paneteam binary as the lead would, inside the test's tmux.
func (c *paneCrew) pt(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t), args...)
	cmd.Env = c.vars
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("paneteam %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func newPaneCrew(t *testing.T) *paneCrew {
	srv := testutil.TmuxServer(t)
	root, state, dir := testutil.Root(t), t.TempDir(), t.TempDir()
	c := &paneCrew{srv: srv, panes: map[string]string{}, logs: map[string]string{},
		vars: testutil.Env(append(testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv)), "PANETEAM_ROOT="+root, "PANETEAM_STATE_DIR="+state)...)}
	c.tm = team.Team{Root: root, Name: "crew"}
	script := filepath.Join(dir, "dialog.sh")
	if err := os.WriteFile(script, []byte(dialog), 0o600); err != nil {
		t.Fatal(err)
	}
	c.pt(t, "team-create", "crew", "--leader-pid", "1")
	for _, name := range []string{"alice", "bob"} {
		c.logs[name] = filepath.Join(dir, name+".log")
		c.pt(t, "spawn-pane", "--team", "crew", "--name", name, "--", "sh", script, c.logs[name], name)
		c.panes[name] = teamMember(t, c.tm, name).TmuxPaneID
	}
	ctx := context.Background()
	c.logs["mallory"] = filepath.Join(dir, "mallory.log")
	p, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sh "+script+" "+c.logs["mallory"]+" mallory")
	if err != nil {
		t.Fatal(err)
	}
	c.panes["mallory"] = p
	// Everything a row and a pane option can say, said for mallory: the
	// member row names the pane and server, the pane carries the agent id.
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", p, tmux.AgentOption, team.AgentID("mallory", "crew")); err != nil {
		t.Fatal(err)
	}
	_, err = c.tm.Update(ctx, lockfile.Options{}, func(cfg *team.Config) error {
		cfg.Members = append(cfg.Members, team.Member{Name: "mallory", AgentID: team.AgentID("mallory", "crew"), TmuxPaneID: p,
			BackendType: team.BackendTmux, JoinedAt: time.Now().UnixMilli(), Paneteam: &team.MemberMeta{TmuxSocket: srv.Socket}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "mallory"} {
		if err := os.MkdirAll(panedialog.RunDir(c.tm, name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := panedialog.Set(c.tm, name, "run rm -rf build", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for name, pane := range c.panes {
		testutil.Eventually(t, 10*time.Second, name+"'s dialog on its screen", func() bool {
			return strings.Contains(capture(t, srv, pane), name+" asks:")
		})
	}
	return c
}

// paneBrowser is browser with time for a team that starts in tmux first
// and a page that follows a pane: a minute in all.
func paneBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := testutil.RequireTool(t, "chromium")
	actx, cancel := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(390, 844))
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func teamMember(t *testing.T, tm team.Team, name string) team.Member {
	t.Helper()
	cfg, err := team.Load(tm.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.Member(name)
	if m == nil {
		t.Fatalf("no member %s", name)
	}
	return *m
}

func capture(t *testing.T, srv tmux.Server, pane string) string {
	t.Helper()
	out, err := srv.Run(context.Background(), "capture-pane", "-p", "-t", pane)
	if err != nil {
		t.Fatalf("capture %s: %v", pane, err)
	}
	return out
}

// servePanes runs paneteam web's server on the teams with the real core
// operations, finding paneteam's records through getenv (its state folder).
func servePanes(t *testing.T, getenv func(string) string, readOnly bool, tms ...team.Team) (*httptest.Server, string) {
	return servePanesAs(t, getenv, readOnly, func(l *web.Live) web.Actions { return l }, tms...)
}

// servePanesAs is servePanes with each team's actions made by as.
func servePanesAs(t *testing.T, getenv func(string) string, readOnly bool, as func(*web.Live) web.Actions, tms ...team.Team) (*httptest.Server, string) {
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
		live := &web.Live{Team: tm, Caller: post.Caller{Getenv: getenv}, ShutdownTimeout: 5 * time.Second}
		boards = append(boards, web.Board{Team: tm.Name, Actions: as(live), Watch: w})
	}
	srv, err := web.New(web.Config{Teams: boards, Token: tok, ReadOnly: readOnly, Log: []io.Writer{&testLog{t}}})
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

// postPane is the page's own request to type into a pane (its session,
// its anti-forgery token), as a script on the page could send it for any
// name; it returns the status and the answer's text.
func postPane(body string) chromedp.Action[string] {
	return chromedp.Evaluate[string](`fetch("/api/pane?team="+encodeURIComponent(document.querySelector('meta[name="paneteam-team"]').content),`+
		`{method:"POST",headers:{"Content-Type":"application/json","X-Paneteam-Csrf":document.querySelector('meta[name="paneteam-csrf"]').content},`+
		`body:JSON.stringify(`+body+`)}).then(async r=>r.status+" "+await r.text())`, chromedp.EvalAwaitPromise)
}

// waitText waits until the element sel holds want in its text.
func waitText(sel, want string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](`(document.querySelector(`+jsString(sel)+`)||{}).textContent?.includes(`+jsString(want)+`) || false`,
			chromedp.WithPollingTimeout(10*time.Second))(ctx, t)
		return chromedp.Void{}, err
	}
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestBrowserAnswersAPaneThatAsks: alice asks in her own pane; the page
// shows its screen as text (markup and an escape in it run nothing) and
// kept current; its key buttons and its line reach alice's pane only;
// mallory's pane, which paneteam did not start though a member row and
// the pane's own option say so, is refused and untouched, and so is the
// pane a rewritten row of alice's names.
func TestBrowserAnswersAPaneThatAsks(t *testing.T) {
	c := newPaneCrew(t)
	// alice's row now names mallory's pane: paneteam's launch record, not
	// the row, says where alice runs.
	if _, err := c.tm.Update(context.Background(), lockfile.Options{}, func(cfg *team.Config) error {
		cfg.Member("alice").TmuxPaneID = c.panes["mallory"]
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx := paneBrowser(t)
	hs, tok := servePanes(t, c.getenv, false, c.tm)
	before := map[string]string{"bob": capture(t, c.srv, c.panes["bob"]), "mallory": capture(t, c.srv, c.panes["mallory"])}

	var screen, malloryNote string
	var imgs, pwned, malloryButtons int
	var sideways bool
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	err := chromedp.Do(wctx,
		chromedp.Navigate(hs.URL+"/?token="+tok),
		chromedp.WaitVisible(css(`li[data-pane="alice"] button[aria-label="Show alice's pane"]`)),
		waitText(`li[data-pane="mallory"]`, "not started by paneteam"),
		into(chromedp.Text(css(`li[data-pane="mallory"]`)), &malloryNote),
		into(chromedp.Evaluate[int](`document.querySelectorAll('li[data-pane="mallory"] button').length`), &malloryButtons),
		chromedp.Click(css(`button[aria-label="Show alice's pane"]`)),
		waitText(`pre.screen`, "alice asks:"),
		into(chromedp.Text(css(`pre.screen`)), &screen),
		into(chromedp.Evaluate[int](`document.querySelectorAll("img").length`), &imgs),
		into(chromedp.Evaluate[int](`window.pwned || 0`), &pwned),
		into(chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`), &sideways),
	)
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	if sideways {
		t.Error("with a pane's wide screen shown, a phone-sized window scrolls sideways")
	}
	if os.Getenv("PANETEAM_SCREENSHOT") != "" {
		var png []byte
		if err := chromedp.Do(ctx, into(chromedp.FullScreenshot(100), &png)); err == nil {
			os.WriteFile(os.Getenv("PANETEAM_SCREENSHOT"), png, 0o600)
		}
	}
	if malloryButtons != 0 {
		t.Errorf("mallory's pane, not paneteam's, is offered with %d buttons: %q", malloryButtons, malloryNote)
	}
	if !strings.Contains(screen, `<img src=x onerror="window.pwned=3"></script>`) || !strings.Contains(screen, "red") {
		t.Errorf("alice's screen is not shown as text: %q", screen)
	}
	if strings.ContainsAny(screen, "\x1b\u009b") || strings.Contains(screen, "[31m") {
		t.Errorf("an escape sequence of the pane reached the page: %q", screen)
	}
	if imgs != 0 || pwned != 0 {
		t.Errorf("the pane's screen became markup: %d img elements, window.pwned=%d", imgs, pwned)
	}

	// A key, Enter, then a line that tmux and a shell would each take
	// for something else (a leading -, a trailing ;, $(...)).
	line := `-n $(touch x) 'q' ;`
	err = chromedp.Do(wctx,
		chromedp.Click(css(`button[aria-label="Press 1 in alice's pane"]`)),
		chromedp.Click(css(`button[aria-label="Press Enter in alice's pane"]`)),
		chromedp.SendKeys(css(`input[aria-label="A line to type into alice's pane"]`), line),
		chromedp.Click(css(`button[aria-label="Type the line into alice's pane"]`)),
		// The screen on the page follows the pane: the line's echo.
		waitText(`pre.screen`, "$(touch x)"),
	)
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "alice's pane to read both answers", func() bool {
		return readFile(t, c.logs["alice"]) == "got:1\ngot:"+line+"\n"
	})

	// The page's own script, asking for mallory's pane and for the lead's
	// (this team has no Claude lead), is refused.
	var mallory, lead string
	err = chromedp.Do(wctx,
		into(postPane(`{name:"mallory",text:"forged",enter:true}`), &mallory),
		into(postPane(`{name:"team-lead",keys:["Enter"]}`), &lead),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mallory, "409 ") || !strings.Contains(mallory, "not started by paneteam") {
		t.Errorf("typing into mallory's pane answered %s", mallory)
	}
	if !strings.HasPrefix(lead, "409 ") {
		t.Errorf("typing into the lead's pane answered %s", lead)
	}
	time.Sleep(300 * time.Millisecond) // what was typed has reached its pane
	for name, was := range before {
		if now := capture(t, c.srv, c.panes[name]); now != was {
			t.Errorf("%s's pane changed:\nbefore %q\nafter  %q", name, was, now)
		}
		if log := readFile(t, c.logs[name]); log != "" {
			t.Errorf("%s's pane read %q", name, log)
		}
	}
}

// TestBrowserReadOnlySeesAPaneButCannotType: a read-only page may look
// at alice's pane, offers no key, and its request to type is refused.
func TestBrowserReadOnlySeesAPaneButCannotType(t *testing.T) {
	c := newPaneCrew(t)
	ctx := paneBrowser(t)
	hs, tok := servePanes(t, c.getenv, true, c.tm)
	before := capture(t, c.srv, c.panes["alice"])
	var buttons int
	var status string
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/?token="+tok),
		chromedp.Click(css(`button[aria-label="Show alice's pane"]`)),
		waitText(`pre.screen`, "alice asks:"),
		into(chromedp.Evaluate[int](`document.querySelectorAll('button[aria-label^="Press"], input[aria-label^="A line"]').length`), &buttons),
		into(postPane(`{name:"alice",keys:["1","Enter"]}`), &status),
	)
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	if buttons != 0 {
		t.Errorf("the read-only page offers %d keys or lines to type", buttons)
	}
	if !strings.HasPrefix(status, "403 ") {
		t.Errorf("the read-only page's request to type answered %s", status)
	}
	time.Sleep(300 * time.Millisecond)
	if now := capture(t, c.srv, c.panes["alice"]); now != before || readFile(t, c.logs["alice"]) != "" {
		t.Errorf("a read-only page typed into alice's pane:\n%s", now)
	}
}

// countingLive is Live counting the reads of a pane's screen.
type countingLive struct {
	*web.Live
	reads atomic.Int64
}

func (c *countingLive) Screen(ctx context.Context, name string) (string, error) {
	c.reads.Add(1)
	return c.Live.Screen(ctx, name)
}

// TestBrowserReadsAPaneOnlyWhileItIsShown: a page that lists alice's
// pane reads nothing of it; shown, it is read about twice a second and
// follows it; closed, it is read no more.
func TestBrowserReadsAPaneOnlyWhileItIsShown(t *testing.T) {
	c := newPaneCrew(t)
	var live *countingLive
	hs, tok := servePanesAs(t, c.getenv, false, func(l *web.Live) web.Actions { live = &countingLive{Live: l}; return live }, c.tm)
	ctx := paneBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/?token="+tok),
		chromedp.WaitVisible(css(`button[aria-label="Show alice's pane"]`))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := live.reads.Load(); n != 0 {
		t.Errorf("alice's pane was read %d times while nobody looked at it", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(css(`button[aria-label="Show alice's pane"]`)), waitText(`pre.screen`, "alice asks:")); err != nil {
		t.Fatal(err)
	}
	shown := live.reads.Load()
	if _, err := c.srv.Run(context.Background(), "send-keys", "-t", c.panes["alice"], "-l", "typed by hand"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, waitText(`pre.screen`, "typed by hand")); err != nil {
		t.Errorf("the page did not follow alice's pane: %v", err)
	}
	time.Sleep(2 * time.Second)
	if n := live.reads.Load() - shown; n < 2 || n > 10 {
		t.Errorf("alice's pane, shown, was read %d times in about 2.5 s; want about 2 a second", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(css(`button[aria-label="Close alice's pane"]`))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	closed := live.reads.Load()
	time.Sleep(1500 * time.Millisecond)
	if n := live.reads.Load() - closed; n != 0 {
		t.Errorf("alice's pane was read %d times after its view was closed", n)
	}
}
