package main

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// browser is a headless Chromium of the run's own (a fresh profile, as in
// internal/ui/web's browser tests) and what its network carried.
type browser struct {
	ctx    context.Context
	cancel func()

	mu      sync.Mutex
	urls    map[network.RequestID]string
	encoded map[network.RequestID]int64 // loadingFinished, plus redirects
	decoded map[network.RequestID]int64 // dataReceived's dataLength
	stream  network.RequestID           // the event stream
	sData   int64                       // the first view's JSON
	views   int                         // views the stream delivered
}

func openBrowser(work string) (*browser, error) {
	exe, err := exec.LookPath("chromium")
	if err != nil {
		return nil, fmt.Errorf("no chromium on PATH (Debian's chromium package): %w", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(filepath.Join(work, "chromium")),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(390, 844), // a phone
	}
	actx, c1 := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, c2 := chromedp.NewContext(actx)
	b := &browser{ctx: ctx, cancel: func() { c2(); c1() }, urls: map[network.RequestID]string{},
		encoded: map[network.RequestID]int64{}, decoded: map[network.RequestID]int64{}}
	if err := chromedp.Do(ctx); err != nil {
		b.close()
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	if err := chromedp.Listen(ctx, b.event); err != nil {
		b.close()
		return nil, err
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		b.close()
		return nil, err
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *browser) close() { b.cancel() }

// event keeps what the network carried; it runs on chromedp's reading
// goroutine, so it only counts.
func (b *browser) event(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		u, _ := url.Parse(e.Request.URL)
		if u != nil {
			u.RawQuery = "" // the token stays out of the report
			b.urls[e.RequestID] = u.String()
			if u.Path == "/events" {
				b.stream = e.RequestID
			}
		}
		if e.RedirectResponse != nil {
			b.encoded[e.RequestID] += int64(e.RedirectResponse.EncodedDataLength)
		}
	case *network.EventDataReceived:
		b.decoded[e.RequestID] += e.DataLength
	case *network.EventLoadingFinished:
		b.encoded[e.RequestID] += int64(e.EncodedDataLength)
	case *network.EventEventSourceMessageReceived:
		if e.EventName == "view" {
			if b.views == 0 {
				b.sData = int64(len(e.Data))
			}
			b.views++
		}
	}
}

func (b *browser) viewCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.views
}

type loadFigures struct {
	encoded, decoded int64
	requests         int
	each             []requestFigure
	streamData       int64
}

type requestFigure struct {
	url              string
	encoded, decoded int64
}

// load opens the URL (the token's redirect, the page, its script,
// styles, icon and manifest) and waits until rows members are listed
// and the network is quiet but for the event stream.
func (b *browser) load(u string, rows int) (loadFigures, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Navigate(u))
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll("#members > li").length >= %d`, rows)))
	}
	if err != nil {
		return loadFigures{}, fmt.Errorf("open the page: %w", err)
	}
	time.Sleep(time.Second) // the manifest and the icon come after the load
	b.mu.Lock()
	defer b.mu.Unlock()
	var f loadFigures
	for id, u := range b.urls {
		if id == b.stream {
			continue
		}
		r := requestFigure{url: u, encoded: b.encoded[id], decoded: b.decoded[id]}
		f.encoded += r.encoded
		f.decoded += r.decoded
		f.each = append(f.each, r)
	}
	sort.Slice(f.each, func(i, j int) bool { return f.each[i].url < f.each[j].url })
	f.requests = len(f.each)
	f.streamData = b.sData
	return f, nil
}

// arm makes the page watch for sel: a MutationObserver on the whole
// document stamps the first change after which sel matches, with the
// same wall clock as Go's (performance.timeOrigin + performance.now()).
func (b *browser) arm(sel string) error {
	js := fmt.Sprintf(`(() => {
  const sel = %q;
  if (document.querySelector(sel)) return false;
  window.__seen = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (document.querySelector(sel)) { obs.disconnect(); resolve([performance.timeOrigin + performance.now(), Date.now()]); }
    });
    obs.observe(document.documentElement, {childList: true, subtree: true, attributes: true, characterData: true});
  });
  return true;
})()`, sel)
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the page shows %s before the change", sel)
	}
	return nil
}

// seen waits for the armed change and returns its time, in Unix ms, and
// how far that stamp is from Date.now() taken with it (the system's wall
// clock, which Go reads too, in whole ms): the check that both are one
// clock.
func (b *browser) seen() (at, skew float64, err error) {
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.__seen`, chromedp.EvalAwaitPromise))
	if err != nil {
		return 0, 0, err
	}
	if len(v) != 2 {
		return 0, 0, fmt.Errorf("the page's stamp is %v", v)
	}
	return v[0], v[0] - v[1], nil
}
