package paneanswer_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// leadScript is a stand-in for Claude's lead: it runs the shell line
// first, asks, then logs every line it reads.
func leadScript(t *testing.T, first string) (script, log string) {
	dir := t.TempDir()
	log = filepath.Join(dir, "got")
	script = filepath.Join(dir, "lead.sh")
	body := first + "printf 'the lead asks: proceed?\\n 1. Yes\\n 2. No\\n'\nwhile IFS= read -r l; do printf 'got:%s\\n' \"$l\" >>" + log + "; done\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return script, log
}

// TestLeadInWezTerm: a lead recorded in a pane of (the fake of) WezTerm
// is read and answered there through wezterm cli, in that pane only; a
// record naming another pane, or a pane where another program is in
// front of the lead, is refused.
func TestLeadInWezTerm(t *testing.T) {
	script, log := leadScript(t, "")
	tm := nativetest.Start(t, nativetest.WezTerm, []string{"sh", script}, nativetest.Options{})
	t.Setenv("PATH", tm.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := context.Background()
	if _, err := tm.WaitScreen(ctx, tm.First, "the lead asks"); err != nil {
		t.Fatal(err)
	}
	p, err := tm.Pane(tm.First)
	if err != nil || p.PID <= 0 {
		t.Fatalf("the lead's pane: %+v, %v", p, err)
	}
	// Another pane, whose shell runs a program in front of it (job
	// control puts sleep in a process group of its own, the terminal's
	// foreground).
	out, err := runIn(tm, "cli", "split-pane", "--pane-id", strconv.Itoa(tm.First), "--", "sh", "-c", "set -m; sleep 600; :")
	if err != nil {
		t.Fatalf("split: %v %s", err, out)
	}
	other, _ := strconv.Atoi(strings.TrimSpace(out))

	state, root := t.TempDir(), testutil.Root(t)
	r, err := leadpane.Of(tm.Getenv(tm.First), p.PID)
	if err != nil || r.Terminal != "wezterm" || r.WezTermSocket == "" {
		t.Fatalf("the record: %+v, %v", r, err)
	}
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	cfg, err := team.Load(testutil.ClaudeTeam(t, root, "wez", testutil.LeadFor(t, p.PID)))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := paneanswer.Lead(ctx, state, cfg)
	if err != nil {
		t.Fatalf("the lead in WezTerm: %v", err)
	}
	screen, err := tg.Screen(ctx)
	if err != nil || !strings.Contains(screen, "the lead asks: proceed?") || strings.Contains(screen, "\x1b") {
		t.Fatalf("the lead's screen: %q, %v", screen, err)
	}
	for _, in := range []paneanswer.Input{
		{Keys: []string{"2", "Enter"}},
		{Keys: []string{"Esc", "Shift-Tab", "Enter"}},
		{Text: `a\x1b \n $(id)`, Enter: true},
	} {
		if err := tg.Type(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	const want = "got:2\ngot:\x1b\x1b[Z\ngot:a\\x1b \\n $(id)\n"
	testutil.Eventually(t, 5*time.Second, "the answers read by the lead", func() error {
		if b, _ := os.ReadFile(log); string(b) != want {
			return fmt.Errorf("the lead read %q, want %q", b, want)
		}
		return nil
	})
	if s, _ := tm.Screen(other); strings.Contains(s, "id)") || strings.Contains(s, "2") {
		t.Errorf("the other pane got the answers: %q", s)
	}

	// A record of the lead's process naming the other pane: that pane's
	// terminal is not the lead's.
	r.WezTermPane = strconv.Itoa(other)
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.Gone {
		t.Errorf("a pane that does not hold the lead: %v", err)
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
	cfg2, err := team.Load(testutil.ClaudeTeam(t, root, "wez2", testutil.LeadFor(t, q.PID)))
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
	// The lead's pane closed: refused.
	if _, err := runIn(tm, "cli", "kill-pane", "--pane-id", strconv.Itoa(other)); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg2); err == nil {
		t.Error("a closed pane was answered")
	}
}

func runIn(tm *nativetest.Terminal, args ...string) (string, error) {
	cmd := execCommand(tm.Bin, args...)
	cmd.Env = tm.Env
	b, err := cmd.CombinedOutput()
	return string(b), err
}

var execCommand = exec.Command
