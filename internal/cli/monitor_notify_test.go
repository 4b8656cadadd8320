package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// noticeTmux is a private tmux server with a person's client attached
// (what its terminal receives is screen) and teammate alice in a window of
// her own, in the background, as paneteam's teammates are.
type noticeTmux struct {
	srv         tmux.Server
	screen      *testutil.Buffer
	alicePane   string
	aliceWindow string
}

func startNoticeTmux(t *testing.T, w *watchTeam, passthrough bool) *noticeTmux {
	t.Helper()
	ctx := context.Background()
	n := &noticeTmux{srv: testutil.TmuxServer(t), screen: &testutil.Buffer{}}
	run := func(args ...string) string {
		out, err := n.srv.Run(ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	run("new-session", "-d", "-s", "work", "-x", "120", "-y", "30", "cat")
	run("set-option", "-g", "allow-passthrough", map[bool]string{true: "on", false: "off"}[passthrough])
	f := strings.Fields(run("new-window", "-d", "-t", "work", "-P", "-F", "#{pane_id} #{window_id}", "cat"))
	n.alicePane, n.aliceWindow = f[0], f[1]
	teamtest.Add(t, w.tm, team.Member{Name: "alice", JoinedAt: time.Now().UnixMilli(), Cwd: "/",
		BackendType: team.BackendTmux, TmuxPaneID: n.alicePane})

	cmd := exec.Command("tmux", "-S", n.srv.Socket, "attach-session", "-t", "work")
	cmd.Env = testutil.Env("TERM=xterm")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); cmd.Process.Kill(); cmd.Wait() })
	go io.Copy(n.screen, ptmx)
	testutil.Eventually(t, 10*time.Second, "a client attached", func() bool {
		out, _ := n.srv.Run(ctx, "list-clients", "-F", "#{client_name}")
		return strings.TrimSpace(out) != ""
	})
	w.vars = append(w.vars, testutil.TmuxEnv(t, n.srv, testutil.FirstPane(t, n.srv))...)
	return n
}

// bell is alice's window's bell flag, as the status line shows it.
func (n *noticeTmux) bell(t *testing.T) string {
	out, err := n.srv.Run(context.Background(), "display-message", "-p", "-t", n.aliceWindow, "#{window_bell_flag}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// TestNoticesInTmux: with --notify tmux,terminal a teammate needing the
// person shows in the client's message line, rings the bell in its
// window, and reaches the terminal as a desktop notification when tmux
// lets it through (allow-passthrough), once while it lasts; a task
// subject holding a tmux format is shown, never run.
func TestNoticesInTmux(t *testing.T) {
	for _, passthrough := range []bool{true, false} {
		t.Run(map[bool]string{true: "passthrough", false: "no-passthrough"}[passthrough], func(t *testing.T) {
			w := newWatchTeam(t)
			n := startNoticeTmux(t, w, passthrough)
			mon := w.startMonitor("--notify", "tmux,terminal", "--terminal", "osc9", "--notify-quiet", "0s")
			if n.bell(t) != "0" {
				t.Fatal("alice's window has its bell flag set before anything happened")
			}

			w.askPermission("alice", "perm-1-abc")
			testutil.Eventually(t, 10*time.Second, "the message line to say alice needs you; monitor: "+mon.out.String()+mon.errb.String(), func() bool {
				return strings.Contains(n.screen.String(), "paneteam crew: alice needs you: 1 request(s) wait for the lead")
			})
			testutil.Eventually(t, 5*time.Second, "the bell flag on alice's window", func() bool { return n.bell(t) == "1" })
			osc := "\x1b]9;paneteam crew: alice needs you: 1 request(s) wait for the lead\a"
			if passthrough {
				testutil.Eventually(t, 5*time.Second, "the terminal to get the notification; monitor: "+mon.errb.String()+fmt.Sprintf("%q", n.screen.String()), func() bool {
					return strings.Contains(n.screen.String(), osc)
				})
			} else {
				testutil.Eventually(t, 5*time.Second, "monitor to say passthrough is off: "+mon.errb.String(), func() bool {
					return strings.Contains(mon.errb.String(), "allow-passthrough is off")
				})
			}
			time.Sleep(time.Second) // five polls: the request still waits
			if got := strings.Count(n.screen.String(), osc); got != map[bool]int{true: 1, false: 0}[passthrough] {
				t.Errorf("the terminal got the notification %d times:\n%q", got, n.screen.String())
			}
			if strings.Contains(n.screen.String(), "Ptmux;") {
				t.Errorf("tmux passed its passthrough wrapper on to the terminal:\n%q", n.screen.String())
			}

			pwned := filepath.Join(t.TempDir(), "PWNED")
			tasks := w.tm.Tasks(lockfile.Options{})
			task, err := tasks.Create(context.Background(), team.NewTask{Subject: "#(touch " + pwned + ") #{pane_id}"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tasks.Update(context.Background(), task.ID, func(tk *team.Task) error {
				tk.Owner, tk.Status = "alice", team.StatusCompleted
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, 10*time.Second, "the message line to say alice finished:\n"+n.screen.String(), func() bool {
				return strings.Contains(n.screen.String(), "alice finished task "+task.ID+": #(touch "+pwned+") #{pane_id}")
			})
			time.Sleep(300 * time.Millisecond)
			if _, err := os.Stat(pwned); err == nil {
				t.Error("a task subject's #(...) was run by tmux")
			}

		})
	}
}

// TestNoNoticesUnlessAsked: monitor without --notify reports the event on
// its output and tells the person nothing else.
func TestNoNoticesUnlessAsked(t *testing.T) {
	w := newWatchTeam(t)
	n := startNoticeTmux(t, w, true)
	mon := w.startMonitor()
	w.askPermission("alice", "perm-1-abc")
	testutil.Eventually(t, 10*time.Second, "monitor to see alice needing you", func() bool {
		return strings.Contains(mon.out.String(), "member-needs-you")
	})
	time.Sleep(time.Second)
	if n.bell(t) != "0" || strings.Contains(n.screen.String(), "needs you") || strings.Contains(n.screen.String(), "\x1b]9;") {
		t.Errorf("told without being asked: bell %s, screen:\n%q", n.bell(t), n.screen.String())
	}
}

// TestNoticeExecGetsJSON: --exec runs the person's command as given,
// once per notice, with the notice as JSON on its standard input: the
// teammate's text as written, the text for people made visible.
func TestNoticeExecGetsJSON(t *testing.T) {
	w := newWatchTeam(t, "alice")
	got := filepath.Join(t.TempDir(), "notices")
	w.startMonitor("--notify-quiet", "0s", "--exec", "--", "tee", "-a", got)
	lines := func() []map[string]any {
		b, _ := os.ReadFile(got)
		var out []map[string]any
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var v map[string]any
			if json.Unmarshal(l, &v) == nil {
				out = append(out, v)
			}
		}
		return out
	}
	w.askPermission("alice", "perm-1-abc")
	testutil.Eventually(t, 10*time.Second, "the command to get the notice", func() bool { return len(lines()) == 1 })
	first := lines()[0]
	for k, v := range map[string]any{"kind": "needs-you", "team": "crew", "who": "alice", "text": "alice needs you: 1 request(s) wait for the lead"} {
		if first[k] != v {
			t.Errorf("%s: got %v, want %v (%v)", k, first[k], v, first)
		}
	}
	tasks := w.tm.Tasks(lockfile.Options{})
	task, err := tasks.Create(context.Background(), team.NewTask{Subject: "fix \x1b[2J it"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.Update(context.Background(), task.ID, func(tk *team.Task) error {
		tk.Owner, tk.Status = "alice", team.StatusCompleted
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the second notice", func() bool { return len(lines()) == 2 })
	time.Sleep(time.Second)
	all := lines()
	if len(all) != 2 {
		t.Fatalf("got %d notices, want 2 (each once): %v", len(all), all)
	}
	if all[1]["kind"] != "finished" || all[1]["subject"] != "fix \x1b[2J it" || all[1]["task"] != task.ID ||
		all[1]["text"] != `alice finished task `+task.ID+`: $'fix \x1b[2J it'` {
		t.Errorf("finished notice: %v", all[1])
	}
}
