package tmux_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestSendLiteralTypesEveryLineAsItIs: texts that tmux would otherwise
// take for a key name, an option, a format or a command separator reach
// the program in the pane as they are; SendKey presses the key; Screen
// holds what the pane shows, without its colours' escapes.
func TestSendLiteralTypesEveryLineAsItIs(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	out := filepath.Join(t.TempDir(), "got")
	pane, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}",
		`printf '\033[31mred\033[0m\n'; cat >`+out)
	if err != nil {
		t.Fatal(err)
	}
	// Typed before the program's first output, a line's echo would come
	// first on the screen.
	testutil.Eventually(t, 5*time.Second, "the pane's program to start", func() bool {
		screen, err := srv.Screen(ctx, pane)
		return err == nil && strings.HasPrefix(screen, "red")
	})
	lines := []string{"Enter", "-l", "-- x", "#{pane_id}", "a ;", ";", `\;`, "$(id) `id` 'q'", "C-c"}
	for _, l := range lines {
		if err := srv.SendLiteral(ctx, pane, l); err != nil {
			t.Fatal(err)
		}
		if err := srv.SendKey(ctx, pane, "Enter"); err != nil {
			t.Fatal(err)
		}
	}
	want := strings.Join(lines, "\n") + "\n"
	testutil.Eventually(t, 5*time.Second, "every line in the pane's program", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == want
	})
	screen, err := srv.Screen(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(screen, "red\n") || strings.Contains(screen, "\x1b") || strings.HasSuffix(screen, "\n") {
		t.Errorf("the screen: %q", screen)
	}
}
