package paneanswer_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/internal/core/paneanswer"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/iterm2/it2test"
	"github.com/paneteam/paneteam/team"
)

// TestLeadInITerm2: a lead recorded in a session of (the fake of)
// iTerm2 is read and answered there through it2 (session read, session
// send), in that session only; a record naming another session, one
// where another program is in front of the lead, or a closed session is
// refused.
func TestLeadInITerm2(t *testing.T) {
	script, log := leadScript(t, "")
	f := it2test.New(t, it2test.Python)
	tm := f.Host(it2test.HostOptions{Lead: []string{"sh", script}})
	t.Setenv("PATH", f.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := context.Background()
	lead, ok := f.Program(f.LeadID)
	if !ok || lead.PID <= 0 {
		t.Fatalf("the lead's session: %+v", lead)
	}
	if _, err := tm.WaitScreen(ctx, lead.ID, "the lead asks"); err != nil {
		t.Fatal(err)
	}
	// Another session, whose shell runs a program in front of it.
	out, err := exec.Command(f.Bin, "session", "split", "-s", f.LeadID).Output()
	if err != nil {
		t.Fatalf("split: %v", err)
	}
	other := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Created new pane:"))
	if err := exec.Command(f.Bin, "session", "run", "-s", other, "sleep 600").Run(); err != nil {
		t.Fatal(err)
	}

	state, root := t.TempDir(), testutil.Root(t)
	r, err := leadpane.Of(tm.Getenv(lead.ID), lead.PID)
	if err != nil || r.Terminal != "iterm2" || r.ITermSession == "" {
		t.Fatalf("the record: %+v, %v", r, err)
	}
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	cfg, err := team.Load(testutil.ClaudeTeam(t, root, "it", testutil.LeadFor(t, lead.PID)))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := paneanswer.Lead(ctx, state, cfg)
	if err != nil {
		t.Fatalf("the lead in iTerm2: %v", err)
	}
	screen, err := tg.Screen(ctx)
	if err != nil || !strings.Contains(screen, "the lead asks: proceed?") || strings.Contains(screen, "\x1b") {
		t.Fatalf("the lead's screen: %q, %v", screen, err)
	}
	for _, in := range []paneanswer.Input{
		{Keys: []string{"2", "Enter"}},
		{Keys: []string{"Esc", "Shift-Tab", "Enter"}},
		{Text: `-s x a\x1b \n $(id)`, Enter: true},
	} {
		if err := tg.Type(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	const want = "got:2\ngot:\x1b\x1b[Z\ngot:-s x a\\x1b \\n $(id)\n"
	testutil.Eventually(t, 5*time.Second, "the answers read by the lead", func() error {
		if b, _ := os.ReadFile(log); string(b) != want {
			return fmt.Errorf("the lead read %q, want %q", b, want)
		}
		return nil
	})
	if s := f.Session(other); s == nil || len(s.Typed) != 1 {
		t.Errorf("the other session was typed into: %+v", s)
	}

	// A record of the lead's process naming the other session.
	r.ITermSession = "w0t0p1:" + other
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.Gone {
		t.Errorf("a session that does not hold the lead: %v", err)
	}
	// The other session's shell, as a lead: sleep is in front of it.
	q, ok := f.Program(other)
	if !ok {
		t.Fatal("the other session's program")
	}
	r2, err := leadpane.Of(tm.Getenv(q.ID), q.PID)
	if err != nil {
		t.Fatal(err)
	}
	if err := leadpane.Write(state, r2); err != nil {
		t.Fatal(err)
	}
	cfg2, err := team.Load(testutil.ClaudeTeam(t, root, "it2", testutil.LeadFor(t, q.PID)))
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
	// The session closed: refused.
	f.CloseSession(other)
	testutil.Eventually(t, 5*time.Second, "the closed session refused", func() bool {
		_, err := paneanswer.Lead(ctx, state, cfg2)
		return err != nil && !strings.Contains(err.Error(), "in front of the lead")
	})
}
