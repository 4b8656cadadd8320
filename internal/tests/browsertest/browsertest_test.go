package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/browsertest"
)

// page has two cards, each with a button whose accessible name (its
// aria-label) differs from the text it shows, and a field; a click shows
// which button of which card was pressed, with the field's text, after a
// delay, as a page that waits on its server would.
const page = `<!doctype html><title>t</title><body>
<ul><li id="one"><input id="f1"><button aria-label="Approve">ok</button></li>
<li id="two"><input id="f2"><button aria-label="Approve">ok</button><button>Deny</button></li></ul>
<p id="out"></p>
<script>
for (const b of document.querySelectorAll("button")) b.addEventListener("click", () => {
  const li = b.closest("li");
  setTimeout(() => { document.getElementById("out").textContent = "pressed " + (b.getAttribute("aria-label") || b.textContent) + " in " + li.id + " with " + li.querySelector("input").value; }, 200);
});
</script>`

func TestBrowserClicksByAccessibleName(t *testing.T) {
	b := browsertest.Start(t, browsertest.Options{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) }))
	t.Cleanup(hs.Close)

	b.Open(t, hs.URL)
	b.Type(t, "#f2", "not now")
	b.ClickButton(t, "#two", "Approve")
	b.WaitText(t, 5*time.Second, "pressed Approve in two with not now")
	b.ClickButton(t, "", "Deny")
	b.WaitText(t, 5*time.Second, "pressed Deny in two")
	if n := browsertest.Eval[int](t, b, `document.querySelectorAll("li").length`); n != 2 {
		t.Errorf("Eval counted %d cards, want 2", n)
	}
	if got := b.Text(t); got == "" {
		t.Error("Text read nothing from the page")
	}
}

// TestWaitTextTimesOut: a text that never comes fails the wait, in its
// time (a wait that cannot fail proves nothing).
func TestWaitTextTimesOut(t *testing.T) {
	b := browsertest.Start(t, browsertest.Options{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) }))
	t.Cleanup(hs.Close)
	b.Open(t, hs.URL)
	ft := &fakeT{TB: t}
	start := time.Now()
	func() {
		defer func() { recover() }() //nolint:errcheck // fakeT.Fatalf ends the step by panicking
		b.WaitText(ft, time.Second, "never shown")
	}()
	if !ft.failed {
		t.Fatal("WaitText for a text the page never shows did not fail")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("WaitText(1s) failed after %s", d)
	}
}

// fakeT records a failure instead of ending the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = true
	f.TB.Logf("(expected) "+format, args...)
	panic("fatal")
}

func (f *fakeT) Helper() {}
