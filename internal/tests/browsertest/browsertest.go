// Package browsertest drives a page in a real, headless Chromium for
// paneteam's tests: a browser of the test's own (a fresh profile in a
// temporary folder, no network traffic of its own making), and the steps a
// person takes (open a URL, click a button by the name a screen reader
// says, type, read what the page shows), each bounded in time. When the
// test fails, the page's address, text and markup are logged.
package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Options shape the browser.
type Options struct {
	// Width and Height are the window's size; zero is a phone's (390x844).
	Width, Height int
	// HostRules are Chromium's --host-resolver-rules, such as "MAP
	// evil.test 127.0.0.1" (a rebinding DNS name): empty, none.
	HostRules string
	// Step bounds each step that names no time of its own; zero is
	// DefaultStep.
	Step time.Duration
}

// DefaultStep is how long a step waits unless told: generous, as the
// machine may be shared with other tests.
const DefaultStep = 20 * time.Second

// startTimeout bounds Chromium's start.
const startTimeout = 60 * time.Second

// Browser is one tab of a headless Chromium that the test started and
// ends when it ends.
type Browser struct {
	ctx  context.Context
	step time.Duration
}

// Start starts Chromium (/usr/bin/chromium, or chromium on PATH). When it
// is missing the test is skipped loudly, or fails under
// PANETEAM_REQUIRE_ALL=1.
func Start(t testing.TB, o Options) *Browser {
	t.Helper()
	exe := testutil.RequireTool(t, "chromium")
	if o.Width == 0 || o.Height == 0 {
		o.Width, o.Height = 390, 844
	}
	if o.Step == 0 {
		o.Step = DefaultStep
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(o.Width, o.Height),
	}
	if o.HostRules != "" {
		opts = append(opts, chromedp.Flag("host-resolver-rules", o.HostRules))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	b := &Browser{ctx: ctx, step: o.Step}
	// The first run on the tab's own context starts the browser, which
	// then lives as long as that context: it must not be a shorter one.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("start chromium (%s): %v", exe, err)
		}
	case <-time.After(startTimeout):
		cancelTab()
		t.Fatalf("chromium (%s) did not start within %s", exe, startTimeout)
	}
	// Registered last, so it runs first: the tab is still there to read.
	t.Cleanup(func() {
		if t.Failed() {
			b.Dump(t)
		}
	})
	return b
}

// Context is the tab's, for chromedp actions of the test's own.
func (b *Browser) Context() context.Context { return b.ctx }

// Do runs steps within d (zero: the browser's step time).
func (b *Browser) Do(d time.Duration, steps ...chromedp.Action[chromedp.Void]) error {
	if d == 0 {
		d = b.step
	}
	// A context derived from the tab's bounds the steps without closing
	// the tab when it ends.
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

// Run runs one step that gives a value, within the browser's step time.
func Run[T any](b *Browser, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, b.step)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// Open navigates to url and waits for the page to load.
func (b *Browser) Open(t testing.TB, url string) {
	t.Helper()
	if err := b.Do(0, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
}

// Eval evaluates the JavaScript expression js in the page and returns
// its value (a promise is awaited).
func Eval[T any](t testing.TB, b *Browser, js string) T {
	t.Helper()
	v, err := Run(b, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// Text is what the page shows, as a person reads it
// (document.body.innerText).
func (b *Browser) Text(t testing.TB) string {
	t.Helper()
	return Eval[string](t, b, `document.body ? document.body.innerText : ""`)
}

// WaitText waits up to d until the page shows text (in
// document.body.innerText).
func (b *Browser) WaitText(t testing.TB, d time.Duration, text string) {
	t.Helper()
	b.WaitJS(t, d, "the page to show "+fmt.Sprintf("%q", text),
		`(s) => document.body !== null && document.body.innerText.includes(s)`, text)
}

// WaitJS waits up to d until the JavaScript function fn, called with
// args, returns a true value (truthy: an element found counts); what says what was waited for. It is checked
// again at every change of the page.
func (b *Browser) WaitJS(t testing.TB, d time.Duration, what, fn string, args ...any) {
	t.Helper()
	if d == 0 {
		d = b.step
	}
	err := b.Do(d+time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		// !! makes any true value (an element found, say) a bool.
		_, err := chromedp.PollFunction[bool]("(...args) => !!("+fn+")(...args)", chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(d),
			chromedp.WithPollingArgs(args...))(ctx, tg)
		return err
	}))
	if err != nil {
		t.Fatalf("waiting %s for %s: %v", d, what, err)
	}
}

// Click clicks the first element that matches the CSS selector sel, once
// it is visible.
func (b *Browser) Click(t testing.TB, sel string) {
	t.Helper()
	if err := b.Do(0, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// ClickButton clicks the button whose accessible name is name inside the
// first element that matches the CSS selector within ("" or "body": the
// whole page), once it is visible.
func (b *Browser) ClickButton(t testing.TB, within, name string) {
	t.Helper()
	if within == "" {
		within = "body"
	}
	label := fmt.Sprintf("%s: button %q", within, name)
	if err := b.Do(0, chromedp.Click(label, ByRole(within, "button", name), chromedp.NodeVisible)); err != nil {
		t.Fatalf("click the button %q in %s: %v", name, within, err)
	}
}

// Type types text into the first element that matches the CSS selector
// sel, as keys.
func (b *Browser) Type(t testing.TB, sel, text string) {
	t.Helper()
	if err := b.Do(0, chromedp.SendKeys(chromedp.CSS(sel), text, chromedp.NodeVisible)); err != nil {
		t.Fatalf("type into %s: %v", sel, err)
	}
}

// Select picks the option whose value is value in the select element
// that matches the CSS selector sel, as a person would (a change event
// follows).
func (b *Browser) Select(t testing.TB, sel, value string) {
	t.Helper()
	if err := b.Do(0, chromedp.SetValue(chromedp.CSS(sel), value, chromedp.NodeVisible)); err != nil {
		t.Fatalf("select %q in %s: %v", value, sel, err)
	}
}

// ByRole is a query option that finds, below the first element that
// matches the CSS selector within, the elements of an ARIA role with an
// accessible name, as a screen reader would (Chromium's
// Accessibility.queryAXTree): the element a person means by "the Approve
// button". It replaces the action's own selector, which is then only a
// label for its errors.
func ByRole(within, role, name string) chromedp.QueryOption {
	return chromedp.ByFunc(func(ctx context.Context, tg *chromedp.Target, n *chromedp.Node) ([]cdp.NodeID, error) {
		root, err := cdp.Call(ctx, tg, dom.QuerySelector, dom.QuerySelectorParams{NodeID: n.NodeID, Selector: within})
		if err != nil || root.NodeID == 0 {
			return nil, err // not there yet: the query tries again
		}
		res, err := cdp.Call(ctx, tg, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{NodeID: root.NodeID, AccessibleName: name, Role: role})
		if err != nil {
			return nil, fmt.Errorf("query the accessibility tree for %s %q: %w", role, name, err)
		}
		var ids []cdp.BackendNodeID
		for _, ax := range res.Nodes {
			if !ax.Ignored && ax.BackendDOMNodeID != 0 {
				ids = append(ids, ax.BackendDOMNodeID)
			}
		}
		if len(ids) == 0 {
			return nil, nil
		}
		pushed, err := cdp.Call(ctx, tg, dom.PushNodesByBackendIDsToFrontend, dom.PushNodesByBackendIDsToFrontendParams{BackendNodeIDs: ids})
		if err != nil {
			return nil, fmt.Errorf("find the %s %q in the page: %w", role, name, err)
		}
		return pushed.NodeIDs, nil
	})
}

// Dump logs the page's address, text and markup, for a failure's report.
func (b *Browser) Dump(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	page, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n--- the page shows:\n" + `+
		`(document.body ? document.body.innerText : "") + "\n--- its markup:\n" + document.documentElement.outerHTML`))
	if err != nil {
		t.Logf("the page could not be read: %v", err)
		return
	}
	t.Logf("the page at %s", strings.TrimSpace(page))
}
