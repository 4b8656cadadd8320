package tmux_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/tmux"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestRefusesDefaultServer(t *testing.T) {
	_, err := tmux.Server{}.Run(context.Background(), "list-sessions")
	if err == nil || !strings.Contains(err.Error(), "default tmux server") {
		t.Fatalf("Run on a Server without socket: %v, want a refusal", err)
	}
}

func TestArgumentEndingInSemicolonIsKept(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	pane := testutil.FirstPane(t, srv)
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", pane, "@v", `a;`); err != nil {
		t.Fatal(err)
	}
	got, err := srv.Run(ctx, "show-options", "-pv", "-t", pane, "@v")
	if err != nil || got != "a;" {
		t.Fatalf("@v = %q, %v; want %q", got, err, "a;")
	}
}

// TestStartRunsCommandOnce starts a command whose arguments, directory
// and environment hold every character tmux or a shell treats specially,
// and checks it ran exactly once and saw them unchanged.
func TestStartRunsCommandOnce(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	lead := testutil.FirstPane(t, srv)
	dir := filepath.Join(t.TempDir(), "odd #{pane_id} dir;")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"it's", "$HOME", "a;", "#{pane_id}", "two  spaces"}
	// The command also records its pane's agent option as it starts: set
	// only by Start, it proves the gate held the command until then.
	script := `printf '%s\n' "$PWD" "$ODD" "$@" "$(tmux -S "$SOCK" show-options -pv -t "$TMUX_PANE" @paneteam-agent)" >> "$OUT"; exec sleep 600`
	argv := append([]string{"sh", "-c", script, "sh"}, args...)

	gate := tmux.NewGate()
	cmd, err := srv.Gated(tmux.Command{Argv: argv, Cwd: dir, Env: []string{"ODD=x;", "OUT=" + out, "SOCK=" + srv.Socket}}, gate)
	if err != nil {
		t.Fatal(err)
	}
	np, err := srv.SplitPane(ctx, layout.Split{Target: lead, Horizontal: true, Percent: 70}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	pane := np.ID
	look := tmux.Look{Agent: "alice@t", Title: "alice", Color: "colour208"}
	if err := srv.Start(ctx, np, look, gate, layout.Relayout{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(append(append([]string{dir, "x;"}, args...), "alice@t"), "\n") + "\n"
	// Waits for all of it, then compares the whole: a second run, if
	// there were one, gets no chance to hide.
	testutil.Eventually(t, 10*time.Second, "the command wrote what it saw", func() error {
		if b, _ := os.ReadFile(out); len(b) < len(want) {
			return fmt.Errorf("it holds %q", b)
		}
		return nil
	})
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Fatalf("command saw\n%q\nwant\n%q", got, want)
	}
	p, err := srv.OwnedPane(ctx, pane, "alice@t")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "alice" || p.Dead {
		t.Errorf("pane title %q dead %v, want alice and alive", p.Title, p.Dead)
	}
	style, _ := srv.Run(ctx, "display-message", "-p", "-t", pane, "#{E:pane-border-style}")
	leadStyle, _ := srv.Run(ctx, "display-message", "-p", "-t", lead, "#{E:pane-border-style}")
	if style != "fg=colour208" || leadStyle != "default" {
		t.Errorf("border styles: teammate %q, lead %q; want fg=colour208 and default", style, leadStyle)
	}
	if _, err := srv.OwnedPane(ctx, lead, "alice@t"); err == nil {
		t.Error("the lead's pane counted as alice's")
	}
}

func TestGoneServerAndPane(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	if _, err := srv.PaneByID(ctx, "%999"); !errors.Is(err, tmux.ErrPaneNotFound) {
		t.Errorf("PaneByID(%%999) = %v, want ErrPaneNotFound", err)
	}
	gone := tmux.Server{Socket: filepath.Join(testutil.ShortTempDir(t), "none")}
	if _, err := gone.PaneByID(ctx, "%1"); !errors.Is(err, tmux.ErrNoServer) {
		t.Errorf("PaneByID on a missing server = %v, want ErrNoServer", err)
	}
	if err := gone.KillPane(ctx, "%1"); err != nil {
		t.Errorf("KillPane on a missing server = %v, want success (already gone)", err)
	}
}

func TestLockExcludes(t *testing.T) {
	srv := tmux.Server{Socket: filepath.Join(testutil.ShortTempDir(t), "s")}
	unlock, err := srv.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := srv.Lock(ctx); err == nil {
		t.Fatal("a second holder got the pane lock while the first held it")
	}
	unlock()
	again, err := srv.Lock(context.Background())
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again()
}

func TestSocketPathOfName(t *testing.T) {
	dir := t.TempDir()
	srv := tmux.Server{Name: "paneteam-1", TmpDir: dir}
	got, err := srv.SocketPath()
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if filepath.Dir(filepath.Dir(got)) != real || filepath.Base(got) != "paneteam-1" {
		t.Fatalf("SocketPath = %s, want %s/tmux-UID/paneteam-1", got, real)
	}
	// tmux must agree: start the server and ask it.
	testutil.RequireTool(t, "tmux")
	srv.Config = "/dev/null"
	if _, err := srv.NewSession(context.Background(), "x", tmux.Command{Argv: tmux.Placeholder}, 80, 24); err != nil {
		t.Fatal(err)
	}
	defer srv.Run(context.Background(), "kill-server")
	said, err := srv.Run(context.Background(), "display-message", "-p", "#{socket_path}")
	if err != nil || said != got {
		t.Fatalf("tmux says its socket is %q (%v), SocketPath said %q", said, err, got)
	}
}

func TestHideAndJoin(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	lead := testutil.FirstPane(t, srv)
	np, err := srv.SplitPane(ctx, layout.Split{Target: lead, Horizontal: true, Percent: 70}, tmux.Command{Argv: tmux.Placeholder})
	if err != nil {
		t.Fatal(err)
	}
	pane := np.ID
	srv.Run(ctx, "set-option", "-p", "-t", pane, tmux.AgentOption, "a@t")
	if err := srv.Hide(ctx, pane); err != nil {
		t.Fatal(err)
	}
	p, err := srv.PaneByID(ctx, pane)
	if err != nil || p.Session != tmux.HiddenSession {
		t.Fatalf("after Hide the pane is in %q (%v), want %s", p.Session, err, tmux.HiddenSession)
	}
	if err := srv.Join(ctx, pane, layout.Split{Target: lead, Horizontal: true}); err != nil {
		t.Fatal(err)
	}
	p, _ = srv.PaneByID(ctx, pane)
	l, _ := srv.PaneByID(ctx, lead)
	if p.WindowID != l.WindowID {
		t.Errorf("shown pane is in window %s, lead in %s", p.WindowID, l.WindowID)
	}
	if _, err := srv.Run(ctx, "has-session", "-t", "="+tmux.HiddenSession); !errors.Is(err, tmux.ErrNoSession) {
		t.Errorf("the hidden session outlived its last pane: %v", err)
	}
}

// TestConfExampleLoads sources tmux.conf.example into a real server: every
// line must parse and the bindings must be there.
func TestConfExampleLoads(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	if _, err := srv.Run(ctx, "source-file", filepath.Join(testutil.ModuleRoot(), "tmux.conf.example")); err != nil {
		t.Fatal(err)
	}
	keys, err := srv.Run(ctx, "list-keys", "-T", "prefix")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"paneteam prompt spawn", "paneteam prompt send", "paneteam inbox-watch", "paneteam prompt hide",
		"paneteam prompt show", "paneteam attach", "paneteam prompt kill-pane"} {
		if !strings.Contains(keys, want) {
			t.Errorf("no binding runs %q", want)
		}
	}
	// The status line hands paneteam this server's panes in the format
	// --panes reads: the example's copy of it must not drift from
	// StatusPanesFormat, or the agent ids it filters could stop matching
	// (every teammate dead) or reach sh unfiltered.
	right, err := srv.Run(ctx, "show-option", "-gv", "status-right")
	if err != nil {
		t.Fatal(err)
	}
	if want := "#(paneteam status --format tmux --panes '" + tmux.StatusPanesFormat + "')"; !strings.Contains(right, want) {
		t.Errorf("status-right is %q, want it to run %s", right, want)
	}
	// Typed text and #{...} values must never reach a shell line (issue
	// 12; internal/tests/tmuxconf types into every binding).
	for _, line := range strings.Split(keys, "\n") {
		if strings.Contains(line, "paneteam") && (strings.Contains(line, "run-shell") || strings.Contains(line, "command-prompt") || strings.Contains(line, "#{")) {
			t.Errorf("binding puts text on a command line: %s", line)
		}
	}
}

// TestStartKeepsTheWindowsBorderStyles: the new pane's making reads its
// window's border styles (split-window -P -F), so Start colours the
// teammate's border without a tmux client of its own to read them, and
// every other pane keeps the style the window had, commas and formats
// included.
func TestStartKeepsTheWindowsBorderStyles(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	lead := testutil.FirstPane(t, srv)
	border, active := "#{?pane_active,fg=red,fg=blue}", "fg=green,bold"
	if _, err := srv.RunSeq(ctx,
		[]string{"set-option", "-w", "-t", lead, "pane-border-style", border},
		[]string{"set-option", "-w", "-t", lead, "pane-active-border-style", active}); err != nil {
		t.Fatal(err)
	}
	real, err := exec.LookPath(srv.Bin)
	if err != nil {
		real, err = exec.LookPath("tmux")
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	srv.Bin = filepath.Join(dir, "tmux")
	script := "#!/bin/sh\necho \"$*\" >> " + tmux.ShellQuote(calls) + "\nexec " + tmux.ShellQuote(real) + " \"$@\"\n"
	if err := os.WriteFile(srv.Bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	gate := tmux.NewGate()
	cmd, err := srv.Gated(tmux.Command{Argv: []string{"sleep", "600"}}, gate)
	if err != nil {
		t.Fatal(err)
	}
	np, err := srv.SplitPane(ctx, layout.Split{Target: lead, Horizontal: true, Percent: 70}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if np.Border != border || np.ActiveBorder != active {
		t.Errorf("the new pane read border styles %q and %q, want %q and %q", np.Border, np.ActiveBorder, border, active)
	}
	if err := srv.Start(ctx, np, tmux.Look{Agent: "alice@t", Title: "alice", Color: "colour208"}, gate, layout.Relayout{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(calls)
	if strings.Contains(string(b), "display-message") || strings.Count(string(b), "split-window") != 1 || strings.Count(string(b), "remain-on-exit") != 1 {
		t.Errorf("making and starting a coloured pane took other tmux clients than one split-window and one start:\n%s", b)
	}
	for _, tc := range []struct{ pane, format, want string }{
		{lead, "#{E:pane-border-style}", "fg=red"},
		{lead, "#{E:pane-active-border-style}", "fg=green,bold"},
		{np.ID, "#{E:pane-border-style}", "fg=colour208"},
	} {
		if got, _ := srv.Run(ctx, "display-message", "-p", "-t", tc.pane, tc.format); got != tc.want {
			t.Errorf("%s of %s is %q, want %q", tc.format, tc.pane, got, tc.want)
		}
	}
}
