package paneanswer_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/internal/core/paneanswer"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// TestLeadInZellij: a lead recorded in a pane of (the fake of) Zellij
// 0.44 is read and answered there by pane id, though another pane has
// the focus; its keys come as it asked (kitty's keyboard protocol, which
// the stand-in turns on, as Claude Code does in the terminals it knows). A record naming a pane the lead was not
// started in, a pane where another program is in front, a closed pane
// and a Zellij before 0.44 (whose actions reach the focused pane only)
// are refused.
func TestLeadInZellij(t *testing.T) {
	script, log := leadScript(t, "printf '\\033[>5u'\n")
	tm := nativetest.Start(t, nativetest.Zellij, []string{"sh", script}, nativetest.Options{})
	t.Setenv("PATH", tm.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("ZELLIJ_SOCKET_DIR", "")
	ctx := context.Background()
	if _, err := tm.WaitScreen(ctx, tm.First, "the lead asks"); err != nil {
		t.Fatal(err)
	}
	p, err := tm.Pane(tm.First)
	if err != nil || p.PID <= 0 {
		t.Fatalf("the lead's pane: %+v, %v", p, err)
	}
	session := tm.Getenv(tm.First)("ZELLIJ_SESSION_NAME")
	// Another pane, focused, whose shell runs a program in front of it.
	out, err := runIn(tm, "--session", session, "action", "new-pane", "--", "sh", "-c", "set -m; sleep 600; :")
	if err != nil {
		t.Fatalf("new pane: %v %s", err, out)
	}
	other, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(out), "terminal_"))
	if err != nil {
		t.Fatalf("new pane's id: %q", out)
	}

	state, root := t.TempDir(), testutil.Root(t)
	r, err := leadpane.Of(tm.Getenv(tm.First), p.PID)
	if err != nil || r.Terminal != "zellij" || r.ZellijSockets == "" {
		t.Fatalf("the record: %+v, %v", r, err)
	}
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	cfg, err := team.Load(testutil.ClaudeTeam(t, root, "zj", testutil.LeadFor(t, p.PID)))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := paneanswer.Lead(ctx, state, cfg)
	if err != nil {
		t.Fatalf("the lead in Zellij: %v", err)
	}
	screen, err := tg.Screen(ctx)
	if err != nil || !strings.Contains(screen, "the lead asks: proceed?") || strings.Contains(screen, "\x1b") {
		t.Fatalf("the lead's screen: %q, %v", screen, err)
	}
	for _, in := range []paneanswer.Input{
		{Keys: []string{"2", "Enter"}},
		{Keys: []string{"Esc", "Shift-Tab", "Enter"}},
		{Text: `-p 1 a\x1b \n $(id)`, Enter: true},
	} {
		if err := tg.Type(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	const want = "got:2\ngot:\x1b[27u\x1b[9;2u\ngot:-p 1 a\\x1b \\n $(id)\n"
	testutil.Eventually(t, 5*time.Second, "the answers read by the lead", func() error {
		if b, _ := os.ReadFile(log); string(b) != want {
			return fmt.Errorf("the lead read %q, want %q", b, want)
		}
		return nil
	})
	if s, _ := tm.Screen(other); strings.Contains(s, "id)") || strings.Contains(s, "2") {
		t.Errorf("the focused pane got the answers: %q", s)
	}

	// A record of the lead's process naming the other pane.
	r.ZellijPane = strconv.Itoa(other)
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.Gone {
		t.Errorf("a pane the lead was not started in: %v", err)
	}
	// The other pane's shell, as a lead: sleep is in front of it.
	q, err := tm.Pane(other)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := leadpane.Of(tm.Getenv(other), q.PID)
	if err != nil {
		t.Fatal(err)
	}
	if err := leadpane.Write(state, r2); err != nil {
		t.Fatal(err)
	}
	cfg2, err := team.Load(testutil.ClaudeTeam(t, root, "zj2", testutil.LeadFor(t, q.PID)))
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "a lead behind another program refused", func() error {
		_, err := paneanswer.Lead(ctx, state, cfg2)
		if reason(err) != paneanswer.Gone || !strings.Contains(err.Error(), "in front of the lead") {
			return fmt.Errorf("a lead with a program in front of it: %v", err)
		}
		return nil
	})

	// A Zellij before 0.44: its actions reach the focused pane only.
	r.ZellijPane = strconv.Itoa(tm.First)
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKEZELLIJ_VERSION", "zellij 0.43.1")
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.LeadTerminal {
		t.Errorf("a lead in Zellij 0.43: %v", err)
	}
	os.Unsetenv("FAKEZELLIJ_VERSION")
	if _, err := paneanswer.Lead(ctx, state, cfg); err != nil {
		t.Fatalf("the lead in Zellij 0.44 again: %v", err)
	}

	// The lead's pane closed (its command ended): refused.
	if err := tm.Close(tm.First); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the closed pane refused", func() bool {
		_, err := paneanswer.Lead(ctx, state, cfg)
		return err != nil
	})
}
