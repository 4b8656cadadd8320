package web_test

import (
	"context"
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

var testLock lockfile.Options

// call runs one DevTools command on the page's target, keeping its
// result in *res when res is not nil.
func call[P, R any](c cdp.Command[P, R], p P, res *R) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		r, err := cdp.Call(ctx, t, c, p)
		if res != nil {
			*res = r
		}
		return chromedp.Void{}, err
	}
}

// cached lists what the page's caches hold: each entry's URL and body.
const cached = `(async () => {
	await navigator.serviceWorker.ready;
	if (!navigator.serviceWorker.controller) {
		await new Promise((ok) => navigator.serviceWorker.addEventListener("controllerchange", ok, { once: true }));
	}
	const out = [];
	for (const name of await caches.keys()) {
		const c = await caches.open(name);
		for (const req of await c.keys()) {
			out.push({ url: req.url, body: await (await c.match(req)).text() });
		}
	}
	return JSON.stringify(out);
})()`

type entry struct{ URL, Body string }

func cacheOf(t *testing.T, ctx context.Context) []entry {
	t.Helper()
	var s string
	if err := chromedp.Do(ctx, into(chromedp.Evaluate[string](cached, chromedp.EvalAwaitPromise), &s)); err != nil {
		dump(t, ctx)
		t.Fatalf("read the page's caches: %v", err)
	}
	var es []entry
	if err := json.Unmarshal([]byte(s), &es); err != nil {
		t.Fatalf("the caches: %v: %s", err, s)
	}
	return es
}

// TestBrowserKeepsThePageNotTheTeam: the page registers its service
// worker, whose cache holds the page's own files and nothing of the
// team's (no page, no event stream, no /api answer, no name, message,
// command or anti-forgery token), even after the page ran under it; the
// manifest is linked and makes the page installable with a start_url
// that carries no token; and with paneteam web gone, the installed page
// still starts, on a shell that says it cannot reach paneteam web.
func TestBrowserKeepsThePageNotTheTeam(t *testing.T) {
	ctx := browser(t)
	tm := crewTeam(t)
	hs, tok := serve(t, tm, false)
	var csrf string
	err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/?token="+tok), chromedp.WaitVisible(css(`li[data-member="alice"]`)),
		into(chromedp.Evaluate[string](`document.querySelector('meta[name="paneteam-csrf"]').content`), &csrf))
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	cacheOf(t, ctx) // the worker installed and controls the page
	// Under the worker now: the page, its event stream, an action.
	err = chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/"), chromedp.WaitVisible(css(`li[data-member="alice"]`)),
		chromedp.SetValue(css(`#send-to`), "bob"), chromedp.SendKeys(css(`#send-text`), "kept nowhere"),
		chromedp.Click(css(`#send-form button[type="submit"]`)))
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the message in bob's inbox", func() bool {
		return strings.Contains(readFile(t, tm.InboxPath("bob")), "kept nowhere")
	})
	es := cacheOf(t, ctx)
	var paths []string
	for _, e := range es {
		u, err := url.Parse(e.URL)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, u.Path+u.RawQuery)
		for _, secret := range []string{"alice", "bob", "crew", permID, "ls -la", "<img src=x", "kept nowhere", csrf, tok} {
			if strings.Contains(e.Body, secret) {
				t.Errorf("the cache's %s holds the team's %q", e.URL, secret)
			}
		}
	}
	slices.Sort(paths)
	want := []string{"/manifest.webmanifest", "/static/app.css", "/static/app.js", "/static/icon.svg", "/static/offline.html", "/static/pane.js", "/static/pwa.js"}
	if !slices.Equal(paths, want) {
		t.Errorf("the service worker's cache holds %v, want the page's own files %v", paths, want)
	}

	var man page.GetAppManifestResult
	var inst page.GetInstallabilityErrorsResult
	mctx, mcancel := context.WithTimeout(ctx, 5*time.Second)
	err = chromedp.Do(mctx, call(page.GetAppManifest, page.GetAppManifestParams{}, &man), call(page.GetInstallabilityErrors, cdp.Empty{}, &inst))
	mcancel()
	if err != nil {
		t.Fatalf("chromium could not judge the manifest (it does not make the page installable?): %v", err)
	}
	if path.Base(man.URL) != "manifest.webmanifest" || len(man.Errors) > 0 {
		t.Errorf("the page's manifest %q has errors: %v", man.URL, man.Errors)
	}
	var raw map[string]any
	json.Unmarshal([]byte(man.Data), &raw) //nolint:errcheck
	if raw["start_url"] != "/" || raw["display"] != "standalone" || raw["name"] == "" {
		t.Errorf("the manifest's start_url, display or name: %s", man.Data)
	}
	for _, e := range inst.InstallabilityErrors {
		t.Errorf("the page cannot be installed: %s %v", e.ErrorID, e.ErrorArguments)
	}

	// paneteam web stops: the installed page starts on the shell.
	hs.CloseClientConnections()
	hs.Close()
	var body string
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.Navigate(hs.URL+"/"), into(chromedp.Text(css(`body`)), &body)); err != nil {
		t.Fatalf("the page without paneteam web: %v", err)
	}
	if !strings.Contains(body, "paneteam web cannot be reached") || strings.Contains(body, "alice") {
		t.Errorf("without paneteam web the page shows %q, want the shell saying it cannot be reached", body)
	}
}

// askCounter counts the page's asks for permission to notify, from
// before its own script runs.
const askCounter = `window.asked = 0;
const ask = Notification.requestPermission.bind(Notification);
Notification.requestPermission = (...a) => { window.asked++; return ask(...a); };`

// shown lists the notifications the page's service worker shows.
const shown = `navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) =>
	JSON.stringify(ns.map((n) => ({ title: n.title, body: n.body }))))`

// TestBrowserNotifiesOnlyOnceAllowed: on load the page asks for nothing
// and offers "Allow notifications"; even with the browser's permission
// granted, a notice shows no notification until the person clicked it;
// after, a teammate that goes away shows one, through the service
// worker, whose body is the notice's plain text.
func TestBrowserNotifiesOnlyOnceAllowed(t *testing.T) {
	tm := crewTeam(t)
	hs, tok := serve(t, tm, false)

	ctx := browser(t)
	var asked int
	var perm string
	err := chromedp.Do(ctx, call(page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: askCounter}, nil),
		chromedp.Navigate(hs.URL+"/?token="+tok), chromedp.WaitVisible(css(`li[data-member="alice"]`)),
		chromedp.WaitVisible(css(`button#notify`)),
		into(chromedp.Evaluate[int](`window.asked`), &asked), into(chromedp.Evaluate[string](`Notification.permission`), &perm))
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	if asked != 0 || perm != "default" {
		t.Errorf("on load the page asked %d times to notify (permission %s): it must wait for the button", asked, perm)
	}
	var label string
	if err := chromedp.Do(ctx, into(chromedp.Text(css(`button#notify`)), &label)); err != nil || label != "Allow notifications" {
		t.Errorf("the button says %q (%v), want Allow notifications", label, err)
	}

	// Another browser, whose permission is granted already.
	ctx = browser(t)
	grant := cdpbrowser.SetPermissionParams{Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"},
		Setting: cdpbrowser.PermissionSettingGranted, Origin: hs.URL}
	if _, err := cdp.Call(ctx, chromedp.FromContext(ctx).Browser, cdpbrowser.SetPermission, grant); err != nil {
		t.Fatal(err)
	}
	var ns string
	err = chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/?token="+tok), chromedp.WaitVisible(css(`li[data-member="alice"]`)),
		chromedp.WaitVisible(css(`button#notify`)), into(chromedp.Evaluate[string](cached, chromedp.EvalAwaitPromise), &ns))
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	leave := func(name string) {
		t.Helper()
		if _, err := tm.Update(context.Background(), testLock, func(c *team.Config) error {
			c.Members = slices.DeleteFunc(c.Members, func(m team.Member) bool { return m.Name == name })
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	leave("bob")
	if err := chromedp.Do(ctx, chromedp.WaitNotPresent(css(`li[data-member="bob"]`)), chromedp.Sleep(300*time.Millisecond),
		into(chromedp.Evaluate[string](shown, chromedp.EvalAwaitPromise), &ns)); err != nil {
		t.Fatal(err)
	}
	if ns != "[]" {
		t.Errorf("before Allow notifications was clicked the page notified: %s", ns)
	}

	err = chromedp.Do(ctx, chromedp.Click(css(`button#notify`)),
		into(chromedp.Poll[bool](`document.getElementById("notify").textContent === "Turn off notifications"`), new(bool)))
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	leave("alice")
	testutil.Eventually(t, 5*time.Second, "a notification of alice leaving", func() bool {
		chromedp.Do(ctx, into(chromedp.Evaluate[string](shown, chromedp.EvalAwaitPromise), &ns)) //nolint:errcheck
		return strings.Contains(ns, "alice")
	})
	var got []struct{ Title, Body string }
	if err := json.Unmarshal([]byte(ns), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Title != "paneteam: crew" || got[0].Body != "alice left the team" {
		t.Errorf("the notifications are %s, want one titled paneteam: crew saying alice left the team", ns)
	}
}
