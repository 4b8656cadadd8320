package kittytest

import (
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestTypedTextShowsOnTheScreen(t *testing.T) {
	k := Start(t, Options{Argv: []string{"cat"}, Env: []string{"KITTYTEST_MARK=on"}})
	if k.Getenv("KITTY_LISTEN_ON") != k.Addr || k.Getenv("KITTY_WINDOW_ID") != k.Window {
		t.Fatalf("Env = %v", k.Env)
	}
	k.SendText(t, k.Window, "hello $(kitty)\r")
	testutil.Eventually(t, 5*time.Second, "cat echoes the typed line", func() bool {
		return strings.Count(k.Text(t, k.Window), "hello $(kitty)") == 2 // typed, then echoed
	})
	w, _, ok := k.List(t).Find(k.Window)
	if !ok || w.Columns < 100 {
		t.Fatalf("first window %+v: want a window of 100+ columns", w)
	}
}
