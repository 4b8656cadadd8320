package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestDashboardRedrawsCleanlyAfterResizes: tmux resizes panes all the
// time (zoom, a new split, a client of another size). After a real tmux
// window running the dashboard is resized several times and brought back
// to its first size, then narrowed by a split and zoomed, the screen is
// what a dashboard started at that size draws: no stale row, no cut-off
// copy of the key help.
func TestDashboardRedrawsCleanlyAfterResizes(t *testing.T) {
	root, _ := dashTeam(t, permReq("perm-1767225600000-abc1234", "alice", longCmd, time.Minute))
	const w, h = 150, 40
	d := startDash(t, root, w, h, "--team crew", "NO_COLOR=1")
	d.waitFor("REQUESTS")
	for _, size := range [][2]int{{60, h}, {w, h}, {80, 24}, {w, h}, {100, 50}, {40, 30}, {w, h}} {
		if _, err := d.srv.Run(context.Background(), "resize-window", "-t", "dash", "-x", fmt.Sprint(size[0]), "-y", fmt.Sprint(size[1])); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond) // a person's pace, not a single batched resize
	}
	// A split beside it narrows the pane; zooming it makes it whole again.
	for _, args := range [][]string{{"split-window", "-h", "-d", "-t", d.pane, "sleep 600"}, {"resize-pane", "-Z", "-t", d.pane}} {
		if _, err := d.srv.Run(context.Background(), args...); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if got := d.format("#{pane_width}x#{pane_height} #{window_zoomed_flag}"); got != fmt.Sprintf("%dx%d 1", w, h) {
		t.Fatalf("the zoomed pane is %s, want %dx%d zoomed", got, w, h)
	}

	fresh := startDashOn(t, testutil.TmuxServer(t), root, w, h, "--team crew", "NO_COLOR=1")
	fresh.waitFor("REQUESTS")
	want := fresh.screen()
	testutil.Eventually(t, 10*time.Second, fmt.Sprintf("after resizes the screen differs from a fresh draw at %dx%d", w, h), func() error {
		if got := d.screen(); got != want {
			return screenDiff{got, want}
		}
		return nil
	})
}

// screenDiff shows, row by row, where a resized screen differs from a
// fresh draw.
type screenDiff struct{ got, want string }

func (s screenDiff) Error() string {
	gl, wl := strings.Split(s.got, "\n"), strings.Split(s.want, "\n")
	var diff []string
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, f string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			f = wl[i]
		}
		if g != f {
			diff = append(diff, fmt.Sprintf("row %d:\n  resized: %q\n  fresh:   %q", i+1, g, f))
		}
	}
	return fmt.Sprintf("\n%s\n\nresized screen:\n%s", strings.Join(diff, "\n"), s.got)
}
