package kittytest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestTypedTextShowsOnTheScreen(t *testing.T) {
	// The first window's program sees kitty's address, its window id and
	// the variables the test gave: what the window itself reports.
	k := Start(t, Options{Argv: []string{"sh", "-c", `echo "addr=$KITTY_LISTEN_ON window=$KITTY_WINDOW_ID mark=$KITTYTEST_MARK"; exec cat`},
		Env: []string{"KITTYTEST_MARK=on"}})
	want := "addr=" + k.Addr + " window=" + k.Window + " mark=on"
	testutil.Eventually(t, 5*time.Second, "the first window to report kitty's address", func() error {
		if text := k.Text(t, k.Window); !strings.Contains(text, want) {
			return fmt.Errorf("the window shows %q, want %q", text, want)
		}
		return nil
	})
	k.SendText(t, k.Window, "hello $(kitty)\r")
	testutil.Eventually(t, 5*time.Second, "cat echoes the typed line", func() bool {
		return strings.Count(k.Text(t, k.Window), "hello $(kitty)") == 2 // typed, then echoed
	})
	w, _, ok := k.List(t).Find(k.Window)
	if !ok || w.Columns < 100 {
		t.Fatalf("first window %+v: want a window of 100+ columns", w)
	}
}
