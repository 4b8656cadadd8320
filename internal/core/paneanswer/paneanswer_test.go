package paneanswer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/internal/core/paneanswer"
	"github.com/paneteam/paneteam/internal/tests/kittytest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

func TestInputCheck(t *testing.T) {
	for _, c := range []struct {
		in paneanswer.Input
		ok bool
	}{
		{paneanswer.Input{Keys: []string{"1", "Enter"}}, true},
		{paneanswer.Input{Keys: []string{"Esc", "Up", "Shift-Tab"}}, true},
		{paneanswer.Input{Text: "-n $(x) ;", Enter: true}, true},
		{paneanswer.Input{Text: "ünïcode"}, true},
		{paneanswer.Input{}, false},
		{paneanswer.Input{Keys: []string{"C-c"}}, false},         // not a dialog's key
		{paneanswer.Input{Keys: []string{"Enter; kill"}}, false}, // nor a tmux command
		{paneanswer.Input{Keys: []string{"1"}, Text: "x"}, false},
		{paneanswer.Input{Text: "a\nb"}, false},
		{paneanswer.Input{Text: "\x1b[31m"}, false},
		{paneanswer.Input{Text: "\u009b2J"}, false},
		{paneanswer.Input{Text: "\xff"}, false},
		{paneanswer.Input{Text: strings.Repeat("x", paneanswer.MaxText+1)}, false},
	} {
		err := c.in.Check()
		var ie *paneanswer.InputError
		if (err == nil) != c.ok || (err != nil && !errors.As(err, &ie)) {
			t.Errorf("%+v: %v, want ok %v", c.in, err, c.ok)
		}
	}
}

func reason(err error) string {
	var re *paneanswer.RefusedError
	if errors.As(err, &re) {
		return re.Reason
	}
	return "not refused: " + errString(err)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestTeammateIsTheRecordedPaneOnly: a launch record naming a pane is
// believed only while the pane on the recorded server carries the
// teammate's agent id (a pane that reused the id does not) and lives;
// no record, or one of another backend, is refused.
func TestTeammateIsTheRecordedPaneOnly(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	state := t.TempDir()
	tm := teamtest.New(t, "crew", team.CreateOptions{Cwd: t.TempDir()}, teamtest.Named("alice", "bob", "carol")...)
	pane, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "cat")
	if err != nil {
		t.Fatal(err)
	}
	store := launches.Open(state)
	rec := launches.Record{Root: tm.Root, Team: tm.Name, Agent: "alice", Backend: team.BackendTmux, Pane: pane, TmuxSocket: srv.Socket}
	if err := store.Write(rec); err != nil {
		t.Fatal(err)
	}
	// The pane lacks the agent id paneteam sets on the panes it makes.
	if _, err := paneanswer.Teammate(ctx, state, tm, "alice"); reason(err) != paneanswer.Gone {
		t.Errorf("a pane without alice's agent id: %v", err)
	}
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", pane, tmux.AgentOption, team.AgentID("alice", "crew")); err != nil {
		t.Fatal(err)
	}
	tg, err := paneanswer.Teammate(ctx, state, tm, "alice")
	if err != nil || tg.Pane != pane {
		t.Fatalf("alice's recorded pane: %+v, %v", tg, err)
	}
	if err := tg.Type(ctx, paneanswer.Input{Text: "hello", Enter: true}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the line echoed by cat", func() bool {
		s, _ := tg.Screen(ctx)
		return strings.Count(s, "hello") == 2
	})
	if _, err := paneanswer.Teammate(ctx, state, tm, "bob"); reason(err) != paneanswer.NotStarted {
		t.Errorf("bob, with no record: %v", err)
	}
	carol := launches.Record{Root: tm.Root, Team: tm.Name, Agent: "carol", Backend: team.BackendKitty, Pane: "3"}
	if err := store.Write(carol); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Teammate(ctx, state, tm, "carol"); reason(err) != paneanswer.OtherBackend {
		t.Errorf("carol, in kitty: %v", err)
	}
	if _, err := paneanswer.Teammate(ctx, state, tm, team.LeadName); reason(err) != paneanswer.NotStarted {
		t.Errorf("the lead as a teammate: %v", err)
	}
	if _, err := srv.Run(ctx, "kill-pane", "-t", pane); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Teammate(ctx, state, tm, "alice"); reason(err) != paneanswer.Gone {
		t.Errorf("alice's pane, closed: %v", err)
	}
}

// TestLeadIsTheRecordedPaneHoldingTheLead: Claude's lead's pane is
// reached only through a record of that very process, in a pane that
// still holds it.
func TestLeadIsTheRecordedPaneHoldingTheLead(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	state, root := t.TempDir(), testutil.Root(t)
	pane, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "exec sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	out, err := srv.Run(ctx, "display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(out)
	lead := func(pid int) *team.Config {
		t.Helper()
		path := testutil.ClaudeTeam(t, root, "s"+strconv.Itoa(pid), testutil.LeadFor(t, pid))
		cfg, err := team.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for _, kv := range vars {
				if key, v, _ := strings.Cut(kv, "="); key == k {
					return v
				}
			}
			return ""
		}
	}
	inPane := env(testutil.TmuxEnv(t, srv, pane)...)

	cfg := lead(pid)
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.LeadElsewhere {
		t.Errorf("a lead without a record: %v", err)
	}
	r, err := leadpane.Of(inPane, pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	if tg, err := paneanswer.Lead(ctx, state, cfg); err != nil || tg.Pane != pane {
		t.Errorf("the recorded lead: %+v, %v", tg, err)
	}

	// A record of another process naming the same pane: the pane does
	// not hold that lead.
	other := exec.Command("sleep", "600")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	r2, err := leadpane.Of(inPane, other.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := leadpane.Write(state, r2); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, lead(other.Process.Pid)); reason(err) != paneanswer.Gone {
		t.Errorf("a record whose pane does not hold its lead: %v", err)
	}

	// A record another user could have written is not believed.
	f := filepath.Join(leadpane.Folder(state), strconv.Itoa(pid)+".json")
	if err := os.Chmod(f, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg); err == nil {
		t.Error("a record others may write was believed")
	}
	os.Chmod(f, 0o600)

	// Recorded in a kitty that does not answer: refused.
	r3, err := leadpane.Of(env("KITTY_WINDOW_ID=3", "KITTY_LISTEN_ON=unix:"+filepath.Join(t.TempDir(), "k")), pid)
	if err != nil || r3.Terminal != "kitty" || r3.KittyWindow != "3" {
		t.Fatalf("kitty's record: %+v, %v", r3, err)
	}
	if err := leadpane.Write(state, r3); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.Gone {
		t.Errorf("a lead in a kitty that does not answer: %v", err)
	}
	// In WezTerm, whose program is not on PATH here: refused.
	r4, err := leadpane.Of(env("WEZTERM_PANE=7"), pid)
	if err != nil || r4.Terminal != "wezterm" || r4.WezTermPane != "7" {
		t.Fatalf("WezTerm's record: %+v, %v", r4, err)
	}
	if err := leadpane.Write(state, r4); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.LeadTerminal {
		t.Errorf("a lead in WezTerm: %v", err)
	}

	// The lead ended: its record is no longer believed.
	if _, err := srv.Run(ctx, "kill-pane", "-t", pane); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the lead to end", func() bool {
		_, err := paneanswer.Lead(ctx, state, cfg)
		return reason(err) == paneanswer.LeadElsewhere
	})
}

// TestLeadInKitty: a lead recorded in a real kitty's window is read and
// answered there, by kitty's remote control; a record naming another
// window of that kitty, which does not hold the lead, is refused. The
// stand-in for Claude Code turns on kitty's keyboard protocol as Claude
// does (CSI > 5 u), and reads each key as kitty sends it then.
func TestLeadInKitty(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "got")
	script := filepath.Join(dir, "lead.sh")
	body := "printf '\\033[>5u'\nprintf 'the lead asks: proceed?\\n 1. Yes\\n 2. No\\n'\nwhile IFS= read -r l; do printf 'got:%s\\n' \"$l\" >>" + log + "; done\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	k := kittytest.Start(t, kittytest.Options{Argv: []string{"sh", script}})
	ctx := context.Background()
	w, _, ok := k.List(t).Find(k.Window)
	if !ok || w.PID <= 0 {
		t.Fatalf("kitty's first window: %+v", w)
	}
	testutil.Eventually(t, 10*time.Second, "the lead's question in kitty", func() bool {
		return strings.Contains(k.Text(t, k.Window), "the lead asks")
	})
	state, root := t.TempDir(), testutil.Root(t)
	r, err := leadpane.Of(k.Getenv, w.PID)
	if err != nil || r.Terminal != "kitty" {
		t.Fatalf("the record: %+v, %v", r, err)
	}
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	cfg, err := team.Load(testutil.ClaudeTeam(t, root, "kit", testutil.LeadFor(t, w.PID)))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := paneanswer.Lead(ctx, state, cfg)
	if err != nil || tg.Kitty == nil {
		t.Fatalf("the lead in kitty: %+v, %v", tg, err)
	}
	screen, err := tg.Screen(ctx)
	if err != nil || !strings.Contains(screen, "the lead asks: proceed?") || strings.Contains(screen, "\x1b") {
		t.Fatalf("the lead's screen: %q, %v", screen, err)
	}
	if err := tg.Type(ctx, paneanswer.Input{Keys: []string{"2", "Enter"}}); err != nil {
		t.Fatal(err)
	}
	// Esc and Shift-Tab as kitty encodes them under that protocol.
	if err := tg.Type(ctx, paneanswer.Input{Keys: []string{"Esc", "Shift-Tab", "Enter"}}); err != nil {
		t.Fatal(err)
	}
	if err := tg.Type(ctx, paneanswer.Input{Text: `a\x1b \n $(id)`, Enter: true}); err != nil {
		t.Fatal(err)
	}
	const want = "got:2\ngot:\x1b[27u\x1b[9;2u\ngot:a\\x1b \\n $(id)\n"
	testutil.Eventually(t, 5*time.Second, "the answers read by the lead", func() error {
		if b, _ := os.ReadFile(log); string(b) != want {
			return fmt.Errorf("the lead read %q, want %q", b, want)
		}
		return nil
	})

	// Another window of the same kitty, named by a record of the lead's
	// process: it does not hold the lead.
	other := strings.TrimSpace(k.Must(t, "launch", "--type=window", "sleep", "600"))
	r.KittyWindow = other
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.Lead(ctx, state, cfg); reason(err) != paneanswer.Gone {
		t.Errorf("a window that does not hold the lead: %v", err)
	}
}
