package paneanswer_test

import (
	"context"
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
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestNoTypingIntoSynchronizedOrModePanes: with synchronize-panes on in
// alice's window, an answer for alice would reach bob's pane too; in copy
// mode, the mode's bindings would take it. Both are refused, nothing is
// typed anywhere, and the person's setting and mode are left as they were.
func TestNoTypingIntoSynchronizedOrModePanes(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	state, dir := t.TempDir(), t.TempDir()
	tm := teamtest.New(t, "crew", team.CreateOptions{Cwd: t.TempDir()}, teamtest.Named("alice")...)
	logA, logB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	pa, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "cat >>"+logA)
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "cat >>"+logB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", pa, tmux.AgentOption, team.AgentID("alice", "crew")); err != nil {
		t.Fatal(err)
	}
	rec := launches.Record{Root: tm.Root, Team: tm.Name, Agent: "alice", Backend: team.BackendTmux, Pane: pa, TmuxSocket: srv.Socket}
	if err := launches.Open(state).Write(rec); err != nil {
		t.Fatal(err)
	}
	tg, err := paneanswer.Teammate(ctx, state, tm, "alice")
	if err != nil {
		t.Fatal(err)
	}

	if _, err := srv.Run(ctx, "set-option", "-w", "-t", pa, "synchronize-panes", "on"); err != nil {
		t.Fatal(err)
	}
	err = tg.Type(ctx, paneanswer.Input{Text: "secret", Enter: true})
	if reason(err) != paneanswer.Synchronized || !strings.Contains(err.Error(), "synchronize-panes is on") {
		t.Errorf("typing into a synchronized window: %v", err)
	}
	if on, _ := srv.Run(ctx, "show-options", "-w", "-v", "-t", pa, "synchronize-panes"); on != "on" {
		t.Errorf("synchronize-panes was changed to %q", on)
	}
	if _, err := srv.Run(ctx, "set-option", "-w", "-t", pa, "synchronize-panes", "off"); err != nil {
		t.Fatal(err)
	}

	// In copy mode, q is a binding (leave the mode): it must not be
	// pressed, nor anything typed.
	if _, err := srv.Run(ctx, "copy-mode", "-t", pa); err != nil {
		t.Fatal(err)
	}
	err = tg.Type(ctx, paneanswer.Input{Keys: []string{"y"}})
	if reason(err) != paneanswer.InMode || !strings.Contains(err.Error(), "copy mode") {
		t.Errorf("typing into a pane in copy mode: %v", err)
	}
	if err := tg.Type(ctx, paneanswer.Input{Text: "q", Enter: true}); reason(err) != paneanswer.InMode {
		t.Errorf("typing q into a pane in copy mode: %v", err)
	}
	if mode, _ := srv.Run(ctx, "display-message", "-p", "-t", pa, "#{pane_mode}"); mode != "copy-mode" {
		t.Errorf("the pane's copy mode was left (a binding ran?): mode %q", mode)
	}
	if _, err := srv.Run(ctx, "send-keys", "-t", pa, "-X", "cancel"); err != nil {
		t.Fatal(err)
	}

	// Now alice's pane takes an answer, and only hers.
	if err := tg.Type(ctx, paneanswer.Input{Text: "after", Enter: true}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the answer in alice's pane", func() bool {
		return readFile(logA) == "after\n"
	})
	if got := readFile(logB); got != "" {
		t.Errorf("bob's pane got %q", got)
	}
	if got := readFile(logA); got != "after\n" {
		t.Errorf("alice's pane got %q, want only the last answer", got)
	}
}

// TestLeadSuspendedIsRefused: a lead suspended with Ctrl-Z is still a
// child of its pane's shell, but what is typed would run in that shell:
// it is refused, and nothing is typed.
func TestLeadSuspendedIsRefused(t *testing.T) {
	testutil.RequireTool(t, "bash")
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	state, root, dir := t.TempDir(), testutil.Root(t), t.TempDir()
	pane, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}",
		"env PS1='$ ' bash --norc --noprofile -i")
	if err != nil {
		t.Fatal(err)
	}
	out, err := srv.Run(ctx, "display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	shell, _ := strconv.Atoi(out)
	if _, err := srv.Run(ctx, "send-keys", "-t", pane, "-l", "sleep 600"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "send-keys", "-t", pane, "Enter"); err != nil {
		t.Fatal(err)
	}
	var lead int
	testutil.Eventually(t, 5*time.Second, "the stand-in lead to run", func() bool {
		b, err := exec.Command("pgrep", "-P", strconv.Itoa(shell), "sleep").Output()
		lead, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && lead > 0
	})
	r, err := leadpane.Of(func(k string) string {
		for _, kv := range testutil.TmuxEnv(t, srv, pane) {
			if key, v, _ := strings.Cut(kv, "="); key == k {
				return v
			}
		}
		return ""
	}, lead)
	if err != nil {
		t.Fatal(err)
	}
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	cfg, err := team.Load(testutil.ClaudeTeam(t, root, "susp", testutil.LeadFor(t, lead)))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := paneanswer.Lead(ctx, state, cfg)
	if err != nil {
		t.Fatalf("the lead in the foreground: %v", err)
	}
	if !strings.Contains(tg.Where(), pane) || !strings.Contains(tg.Where(), srv.Socket) {
		t.Errorf("where the lead is: %q", tg.Where())
	}

	if _, err := srv.Run(ctx, "send-keys", "-t", pane, "C-z"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the lead to be suspended", func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(lead) + "/stat")
		i := strings.LastIndexByte(string(b), ')')
		return i > 0 && strings.HasPrefix(string(b[i+1:]), " T")
	})
	testutil.Eventually(t, 5*time.Second, "the lead refused once suspended", func() bool {
		_, err := paneanswer.Lead(ctx, state, cfg)
		return reason(err) == paneanswer.Background
	})
	typed := filepath.Join(dir, "typed")
	if err := tg.Type(ctx, paneanswer.Input{Text: "touch " + typed, Enter: true}); reason(err) != paneanswer.Background {
		t.Errorf("typing for a suspended lead: %v", err)
	}
	// The shell runs what reaches it in order: once a later line of the
	// test's ran, the refused one would have too.
	after := filepath.Join(dir, "after")
	if _, err := srv.Run(ctx, "send-keys", "-t", pane, "-l", "touch "+after); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "send-keys", "-t", pane, "Enter"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the shell to run the test's line", func() bool {
		_, err := os.Stat(after)
		return err == nil
	})
	if _, err := os.Stat(typed); err == nil {
		t.Error("the refused line ran in the lead's shell")
	}
	exec.Command("kill", "-KILL", strconv.Itoa(lead)).Run()
}

// TestLeadNamedByTwoTeamsIsRefused: config.json's leadProcess, which
// teammates write, picks the lead's record; when another team under the
// root names the same lead process, which team the pane leads cannot be
// told, and it is refused.
func TestLeadNamedByTwoTeamsIsRefused(t *testing.T) {
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
	r, err := leadpane.Of(func(k string) string {
		for _, kv := range testutil.TmuxEnv(t, srv, pane) {
			if key, v, _ := strings.Cut(kv, "="); key == k {
				return v
			}
		}
		return ""
	}, pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := leadpane.Write(state, r); err != nil {
		t.Fatal(err)
	}
	testutil.ClaudeTeam(t, root, "one", testutil.LeadFor(t, pid))
	mine := team.Team{Root: root, Name: "one"}
	tg, err := paneanswer.NewListing().LeadOfTeam(ctx, state, mine)
	if err != nil || tg.Pane != pane || !strings.Contains(tg.Where(), pane) {
		t.Fatalf("the lead of one team: %+v %q, %v", tg, tg.Where(), err)
	}
	other := testutil.ClaudeTeam(t, root, "two", testutil.LeadFor(t, pid))
	_, err = paneanswer.NewListing().LeadOfTeam(ctx, state, mine)
	if reason(err) != paneanswer.LeadShared || !strings.Contains(err.Error(), "two") {
		t.Errorf("a lead two teams name: %v", err)
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if _, err := paneanswer.NewListing().LeadOfTeam(ctx, state, mine); err != nil {
		t.Errorf("the lead once the other team is gone: %v", err)
	}
}
