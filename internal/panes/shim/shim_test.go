package shim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// rig runs paneteam under the name tmux, first on PATH, as Claude Code's
// lead runs it once 'paneteam claude' started it: the calls below are
// those Claude Code makes (docs/CLAUDE-TMUX.md), against a real
// tmux server.
type rig struct {
	t    *testing.T
	link string   // .../tmux -> paneteam
	env  []string // the lead's environment
	srv  tmux.Server
	lead string // the lead's pane inside tmux ("" outside)
	log  string
	real string
}

func newRig(t *testing.T, layout string, inside bool) *rig {
	t.Helper()
	real := testutil.RequireTool(t, "tmux")
	dir := testutil.ShortTempDir(t)
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, link: filepath.Join(bin, "tmux"), log: filepath.Join(dir, "shim.log"), real: real}
	if err := os.Symlink(testutil.Binary(t), r.link); err != nil {
		t.Fatal(err)
	}
	// A person's default shell that leaves a mark when anything runs
	// through it: a teammate's command must not.
	marker := filepath.Join(dir, "shell-used")
	shell := filepath.Join(dir, "myshell")
	os.WriteFile(shell, []byte("#!/bin/sh\ntouch "+marker+"\nexec /bin/sh \"$@\"\n"), 0o755)
	r.env = testutil.Env("PATH="+bin+":"+os.Getenv("PATH"), shim.EnvDir+"="+bin, shim.EnvLayout+"="+layout,
		shim.EnvLog+"="+r.log, shim.EnvClaude+"=2.1.330", "TMUX_TMPDIR="+dir)
	t.Cleanup(func() {
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("a command ran through the person's default shell")
		}
	})
	if inside {
		r.srv = testutil.TmuxServer(t)
		r.run(r.srv, "set-option", "-g", "default-shell", shell)
		r.lead = testutil.FirstPane(t, r.srv)
		r.env = append(r.env, testutil.TmuxEnv(t, r.srv, r.lead)...)
		r.env = append(r.env, shim.EnvSocket+"="+r.srv.Socket)
	} else {
		r.srv = tmux.Server{Name: "claude-swarm-" + strconv.Itoa(os.Getpid()), TmpDir: dir}
		t.Cleanup(func() {
			cmd := exec.Command(real, "-L", r.srv.Name, "kill-server")
			cmd.Env = r.env
			cmd.Run()
		})
	}
	return r
}

// run runs the real tmux on srv.
func (r *rig) run(srv tmux.Server, args ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := srv.Run(ctx, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// tmux runs the shim as Claude's lead would, with argv.
func (r *rig) tmux(env []string, argv ...string) (string, string, int) {
	r.t.Helper()
	cmd := exec.Command(r.link, argv...)
	cmd.Env = append(append([]string{}, r.env...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		r.t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// ok runs a call addressed to the lead's server and wants exit 0.
func (r *rig) ok(argv ...string) string {
	r.t.Helper()
	out, errOut, rc := r.tmux(nil, append(r.server(), argv...)...)
	if rc != 0 {
		r.t.Fatalf("tmux %q: exit %d: %s", argv, rc, errOut)
	}
	return out
}

func (r *rig) server() []string {
	if r.lead != "" {
		return []string{"-S", r.srv.Socket}
	}
	return []string{"-L", r.srv.Name}
}

// spawn makes one teammate's pane with Claude Code's calls
// (inside tmux, dora first, then eve, finn), starts its command, and
// returns the pane. The command writes its agent id into dir/<name> and
// sleeps.
func (r *rig) spawn(name, color, dir string, n int) string {
	r.t.Helper()
	var target, pane string
	if r.lead != "" {
		win := strings.TrimSpace(r.ok("display-message", "-t", r.lead, "-p", "#{window_id}"))
		panes := strings.Fields(r.ok("list-panes", "-t", win, "-F", "#{pane_id}"))
		args := []string{"split-window", "-d", "-t", r.lead, "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"}
		if len(panes) > 1 { // Claude decides from what it sees in its window
			dir := "-v"
			if n%2 == 0 {
				dir = "-h"
			}
			args = []string{"split-window", "-d", "-t", panes[1], dir, "-P", "-F", "#{pane_id}", "--", "cat"}
		}
		out := r.ok(args...)
		if !strings.HasPrefix(out, "%") || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
			r.t.Fatalf("split-window -P -F #{pane_id} printed %q, want one pane id and a newline", out)
		}
		pane = strings.TrimSpace(out)
		target = win
	} else {
		_, _, rc := r.tmux(nil, "-L", r.srv.Name, "has-session", "-t", "claude-swarm")
		if (rc == 0) != (n > 0) {
			r.t.Fatalf("has-session exit %d before teammate %d", rc, n)
		}
		if n == 0 {
			pane = strings.TrimSpace(r.ok("new-session", "-d", "-s", "claude-swarm", "-n", "swarm-view", "-P", "-F", "#{pane_id}", "--", "cat"))
		} else {
			if got := strings.TrimSpace(r.ok("list-windows", "-t", "claude-swarm", "-F", "#{window_name}")); got != "swarm-view" {
				r.t.Fatalf("list-windows = %q, want swarm-view", got)
			}
			first := strings.Fields(r.ok("list-panes", "-t", "claude-swarm:swarm-view", "-F", "#{pane_id}"))[0]
			pane = strings.TrimSpace(r.ok("split-window", "-d", "-t", first, "-v", "-P", "-F", "#{pane_id}", "--", "cat"))
		}
		target = "claude-swarm:swarm-view"
	}
	r.ok("set-option", "-p", "-t", pane, "window-style", "bg=default,fg="+color)
	r.ok("set-option", "-p", "-t", pane, "pane-border-style", "fg="+color)
	r.ok("select-pane", "-t", pane, "-T", name)
	if n == 0 {
		r.ok("set-option", "-w", "-t", target, "pane-border-status", "top")
	} else if r.lead != "" {
		r.ok("select-layout", "-t", target, "main-vertical")
		r.ok("resize-pane", "-t", r.lead, "-x", "30%")
	} else {
		r.ok("select-layout", "-t", target, "tiled")
	}
	r.ok("set-option", "-p", "-t", pane, "remain-on-exit", "failed")
	// One shell line, as Claude Code gives it: cd, env, the command and
	// the teammate's flags.
	line := "cd " + dir + " && env NAME=" + name + ` sh -c 'echo "$NAME $2" > "$NAME"; exec sleep 600' sh --agent-id ` + name + "@panes"
	r.ok("respawn-pane", "-k", "-t", pane, "--", line)
	file := filepath.Join(dir, name)
	testutil.Eventually(r.t, 10*time.Second, name+"'s command to run", func() bool {
		b, _ := os.ReadFile(file)
		return string(b) == name+" "+name+"@panes\n"
	})
	return pane
}

type paneRow struct {
	id, window, agent, lead, title, cmd string
	left, top, width, height            int
}

func (r *rig) panes() []paneRow {
	r.t.Helper()
	out := r.run(r.srv, "list-panes", "-a", "-F",
		"#{pane_id}|#{window_id}|#{@paneteam-agent}|#{@paneteam-claude-lead}|#{pane_title}|#{pane_current_command}|#{pane_left}|#{pane_top}|#{pane_width}|#{pane_height}")
	var rows []paneRow
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(l, "|")
		if len(f) != 10 {
			continue
		}
		p := paneRow{id: f[0], window: f[1], agent: f[2], lead: f[3], title: f[4], cmd: f[5]}
		p.left, _ = strconv.Atoi(f[6])
		p.top, _ = strconv.Atoi(f[7])
		p.width, _ = strconv.Atoi(f[8])
		p.height, _ = strconv.Atoi(f[9])
		rows = append(rows, p)
	}
	return rows
}

func find(rows []paneRow, id string) paneRow {
	for _, p := range rows {
		if p.id == id {
			return p
		}
	}
	return paneRow{}
}

func TestInsideTmuxMainVertical(t *testing.T) {
	r := newRig(t, "", true)
	work := t.TempDir()
	var mates []string
	for i, n := range []string{"dora", "eve", "finn"} {
		mates = append(mates, r.spawn(n, "blue", work, i))
	}
	rows := r.panes()
	lead := find(rows, r.lead)
	// The lead keeps the left 30% (of 200 columns), the teammates are
	// stacked in one column to its right.
	if lead.left != 0 || lead.width < 55 || lead.width > 62 {
		t.Errorf("lead pane %+v, want the left column at 30%%", lead)
	}
	tops := map[int]bool{}
	for i, id := range mates {
		p := find(rows, id)
		if p.window != lead.window || p.left != lead.width+1 || tops[p.top] {
			t.Errorf("teammate pane %+v is not stacked right of the lead (%+v)", p, lead)
		}
		tops[p.top] = true
		name := []string{"dora", "eve", "finn"}[i]
		if p.agent != name+"@panes" || p.lead == "" || p.title != name {
			t.Errorf("teammate pane %+v: want @paneteam-agent %s@panes, a lead mark and title %s", p, name, name)
		}
	}
	if lead.agent != "" || lead.lead != "" {
		t.Errorf("the lead's own pane was marked: %+v", lead)
	}
	// At the lead's exit Claude kills each pane; the window is laid out
	// again and the lead's pane takes the room back.
	for _, id := range mates {
		if out := r.ok("kill-pane", "-t", id); out != "" {
			t.Errorf("kill-pane printed %q", out)
		}
	}
	rows = r.panes()
	if len(rows) != 1 || rows[0].id != r.lead || rows[0].width != 200 {
		t.Errorf("after the kills: %+v, want the lead's pane alone at full width", rows)
	}
}

func TestInsideTmuxTiled(t *testing.T) {
	r := newRig(t, "tiled", true)
	work := t.TempDir()
	for i, n := range []string{"dora", "eve", "finn"} {
		r.spawn(n, "green", work, i)
	}
	// tmux's own tiled arrangement: laying the window out tiled again
	// changes nothing.
	before := r.run(r.srv, "display-message", "-p", "-t", r.lead, "#{window_layout}")
	r.run(r.srv, "select-layout", "-t", r.lead, "tiled")
	after := r.run(r.srv, "display-message", "-p", "-t", r.lead, "#{window_layout}")
	if before != after {
		t.Errorf("window is not tiled: %s, tiled is %s", before, after)
	}
	if n := len(r.panes()); n != 4 {
		t.Errorf("%d panes, want the lead and 3 teammates in one window", n)
	}
}

func TestInsideTmuxWindows(t *testing.T) {
	r := newRig(t, "windows", true)
	work := t.TempDir()
	var mates []string
	for i, n := range []string{"dora", "eve", "finn"} {
		mates = append(mates, r.spawn(n, "yellow", work, i))
	}
	rows := r.panes()
	lead := find(rows, r.lead)
	if lead.width != 200 || lead.height != 50 {
		t.Errorf("the lead's pane is %dx%d, want its window untouched (200x50)", lead.width, lead.height)
	}
	border := r.run(r.srv, "show-options", "-wv", "-t", r.lead, "pane-border-status")
	if border == "top" {
		t.Errorf("the lead's window got pane-border-status top")
	}
	windows := map[string]bool{lead.window: true}
	for i, id := range mates {
		p := find(rows, id)
		name := []string{"dora", "eve", "finn"}[i]
		if windows[p.window] {
			t.Errorf("teammate %s shares window %s", name, p.window)
		}
		windows[p.window] = true
		if wn := r.run(r.srv, "display-message", "-p", "-t", id, "#{window_name}"); wn != name {
			t.Errorf("teammate %s's window is named %q", name, wn)
		}
	}
	for _, id := range mates {
		r.ok("kill-pane", "-t", id)
	}
	if rows := r.panes(); len(rows) != 1 {
		t.Errorf("after the kills: %+v, want the lead's pane alone", rows)
	}
}

func TestOutsideTmux(t *testing.T) {
	r := newRig(t, "", false)
	work := t.TempDir()
	if out := r.ok("-V"); !strings.HasPrefix(out, "tmux ") {
		t.Errorf("-V printed %q", out)
	}
	var mates []string
	for i, n := range []string{"dora", "eve", "finn"} {
		mates = append(mates, r.spawn(n, "blue", work, i))
	}
	sock, _ := r.srv.SocketPath()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the private server's socket: %v", err)
	}
	before := r.run(r.srv, "display-message", "-p", "-t", mates[0], "#{window_layout}")
	r.run(r.srv, "select-layout", "-t", mates[0], "tiled")
	if after := r.run(r.srv, "display-message", "-p", "-t", mates[0], "#{window_layout}"); before != after {
		t.Errorf("the private window is not tiled: %s vs %s", before, after)
	}
	for _, id := range mates {
		r.ok("kill-pane", "-t", id)
	}
	testutil.Eventually(t, 5*time.Second, "the private server to end with its last pane", func() bool {
		_, err := r.srv.Run(context.Background(), "list-sessions")
		return errors.Is(err, tmux.ErrNoServer)
	})
	if _, err := os.Stat(sock + tmux.LockSuffix); err == nil {
		t.Errorf("the pane lock of the ended server is left behind")
	}
}

func TestPassThrough(t *testing.T) {
	r := newRig(t, "", true)
	other := testutil.TmuxServer(t)
	// A teammate's own Bash tool running tmux on another server: the
	// real tmux answers, untouched.
	out, errOut, rc := r.tmux(nil, "-S", other.Socket, "split-window", "-d", "-t", testutil.FirstPane(t, other), "-P", "-F", "#{pane_id}")
	if rc != 0 || !strings.HasPrefix(out, "%") {
		t.Fatalf("pass-through split: %q %q %d", out, errOut, rc)
	}
	if tag := r.run(other, "display-message", "-p", "-t", strings.TrimSpace(out), "#{@paneteam-claude-lead}"); tag != "" {
		t.Errorf("a pane on a server that is not the lead's was marked %q", tag)
	}
	// Claude's screen probes carry no -S: the real tmux answers them.
	out, _, rc = r.tmux(nil, "show", "-gv", "focus-events")
	if rc != 0 || strings.TrimSpace(out) != "off" {
		t.Errorf("show -gv focus-events: %q exit %d", out, rc)
	}
	out, _, rc = r.tmux(nil, "display-message", "-p", "-t", r.lead, "#{pane_top}\t#{status}")
	if rc != 0 || out != "0\ton\n" {
		t.Errorf("display-message probe: %q exit %d", out, rc)
	}
	// Errors come back as tmux gives them.
	realCmd := exec.Command(r.real, "-S", r.srv.Socket, "kill-pane", "-t", "%99")
	wantErr, _ := realCmd.CombinedOutput()
	out, errOut, rc = r.tmux(nil, "-S", r.srv.Socket, "kill-pane", "-t", "%99")
	if rc != 1 || out != "" || errOut != string(wantErr) {
		t.Errorf("kill-pane of a missing pane: out %q err %q exit %d; tmux says %q exit 1", out, errOut, rc, wantErr)
	}
	// Without 'paneteam claude' around it, the shim interprets nothing.
	var plain []string
	for _, kv := range r.env {
		if !strings.HasPrefix(kv, shim.EnvDir+"=") {
			plain = append(plain, kv)
		}
	}
	cmd := exec.Command(r.link, "-S", r.srv.Socket, "kill-server")
	cmd.Env = plain
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("kill-server outside 'paneteam claude': %v %s", err, out)
	}
}

func TestUnknownCall(t *testing.T) {
	r := newRig(t, "", true)
	out, errOut, rc := r.tmux([]string{shim.EnvClaude + "=2.1.999"}, "-S", r.srv.Socket, "kill-session", "-t", "x")
	if rc != 1 || out != "" {
		t.Errorf("unknown call: exit %d out %q, want exit 1 and no output", rc, out)
	}
	for _, want := range []string{"unknown call: tmux -S " + r.srv.Socket + " kill-session -t x", claudeversion.Tested.String(), "2.1.999", r.log} {
		if !strings.Contains(errOut, want) {
			t.Errorf("message lacks %q:\n%s", want, errOut)
		}
	}
	b, err := os.ReadFile(r.log)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Argv    []string `json:"argv"`
		Unknown string   `json:"unknown"`
		RC      int      `json:"rc"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &e); err != nil || e.Unknown == "" || e.RC != 1 || strings.Join(e.Argv, " ") != "-S "+r.srv.Socket+" kill-session -t x" {
		t.Errorf("log entry %s (%v)", b, err)
	}
	// The server is untouched.
	if n := len(r.panes()); n != 1 {
		t.Errorf("%d panes after a refused call", n)
	}
}

func TestNeverRecurses(t *testing.T) {
	r := newRig(t, "", true)
	// Only the shim on PATH, and the real tmux named as itself: it must
	// say so, not call itself.
	bin := filepath.Dir(r.link)
	out, errOut, rc := r.tmux([]string{"PATH=" + bin, shim.EnvTmux + "=" + r.link}, "-V")
	if rc != 127 || out != "" || !strings.Contains(errOut, "no tmux found on PATH") {
		t.Errorf("no real tmux: exit %d out %q err %q", rc, out, errOut)
	}
}
