package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/paneanswer"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// TestAnswerClaudeLeadInKitty: a person starts Claude's lead with
// 'paneteam claude --answer-from-web' in kitty, and answers it from
// paneteam web. Through the pane-answer path the web view uses, the
// lead's screen reads as Claude's own prompt, a line typed there with
// Enter reaches Claude's model as the person's next message, and the
// lead's own permission dialog, asked on its screen, takes the key
// pressed for it: Claude Code turns on kitty's keyboard protocol, so
// every key must arrive as the protocol encodes it for Claude.
func TestAnswerClaudeLeadInKitty(t *testing.T) {
	term := &kittyTerm{t: t}
	l := startShimLeadFlags(t, "", false, term, nil, nil, []string{"--answer-from-web"}, "--permission-mode", "default")
	ctx := context.Background()
	cfg, err := team.Load(filepath.Join(l.TeamDir(), "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	// What the web handler does for the lead's row (web.Live.pane).
	tg, err := paneanswer.Lead(ctx, l.state, cfg)
	if err != nil || tg.Kitty == nil {
		t.Fatalf("the lead's pane in kitty: %+v, %v", tg, err)
	}
	screen := func() string {
		s, err := tg.Screen(ctx)
		if err != nil {
			t.Fatalf("read the lead's screen: %v", err)
		}
		return s
	}
	t.Cleanup(func() {
		if t.Failed() {
			s, err := tg.Screen(ctx)
			t.Logf("the lead's screen at the end (%v):\n%s", err, s)
		}
	})
	testutil.Eventually(t, wait, "Claude's prompt on the lead's screen, read through paneanswer", func() bool {
		s := screen()
		return strings.Contains(s, "Claude Code v"+claudetest.Version()) && strings.Contains(s, "❯")
	})
	if s := screen(); strings.Contains(s, "\x1b") {
		t.Errorf("the lead's screen came with escape sequences: %q", s)
	}

	// A line typed with Enter is the person's next message to Claude.
	const line = "please write the marker file"
	marker := filepath.Join(l.Cwd, "marker-from-web")
	cmd := "echo from-web > " + marker
	l.api.On(line,
		claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": cmd, "description": "write the marker"})),
		claudetest.Text("Written."))
	after := l.api.LastSeq()
	if err := tg.Type(ctx, paneanswer.Input{Text: line, Enter: true}); err != nil {
		t.Fatal(err)
	}
	got := l.api.WaitRequest(t, wait, after, "carrying the line typed through paneanswer", func(r *claudetest.Request) bool {
		return r.MainLoop && r.SessionID() == cfg.LeadSessionID && strings.Contains(r.TailText(), line)
	})
	if n := strings.Count(got.MessagesText(), line); n != 1 {
		t.Errorf("the line is in Claude's conversation %d times, want once", n)
	}

	// The model's Bash call asks the person on the lead's screen; "1"
	// pressed through paneanswer allows it.
	// Observed with kitty 0.26: the notification Claude sends with the
	// dialog (OSC 99) is drawn as text over the dialog's "1. Yes" line,
	// so the dialog is known by its question and last option.
	testutil.Eventually(t, wait, "the lead's permission dialog on its screen", func() bool {
		s := screen()
		return strings.Contains(s, "Do you want to proceed?") && strings.Contains(s, "4. No")
	})
	if err := tg.Type(ctx, paneanswer.Input{Keys: []string{"1"}}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, wait, "the allowed command to write its marker", func() error {
		if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != "from-web" {
			return fmt.Errorf("marker %q, %v; the lead's screen:\n%s", b, err, screen())
		}
		return nil
	})

	// Esc cancels the next dialog: the command does not run and Claude
	// says it was interrupted.
	const line2 = "now write the second marker"
	marker2 := filepath.Join(l.Cwd, "marker-two")
	l.api.On(line2,
		claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": "echo two > " + marker2, "description": "write the second marker"})),
		claudetest.Text("Written again."))
	testutil.Eventually(t, wait, "Claude's reply to the first line", func() bool { return strings.Contains(screen(), "Written.") })
	if err := tg.Type(ctx, paneanswer.Input{Text: line2, Enter: true}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, wait, "the second permission dialog", func() bool {
		s := screen()
		return strings.Contains(s, "Do you want to proceed?") && strings.Contains(s, "second marker")
	})
	if err := tg.Type(ctx, paneanswer.Input{Keys: []string{"Esc"}}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, wait, "Esc to cancel the dialog", func() bool {
		s := screen()
		return strings.Contains(s, "Interrupted") && !strings.Contains(s, "Do you want to proceed?")
	})
	if _, err := os.Stat(marker2); err == nil {
		t.Error("the command of the dialog cancelled with Esc ran")
	}
}
