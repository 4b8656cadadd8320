package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// scriptedTeammate answers a shutdown request the way its first argument
// says (approve: answer and exit; reject: answer and keep running; silent:
// never answer), replying with 'paneteam send --type' as any teammate may.
const scriptedTeammate = `#!/bin/sh
mode=$1 pt=$2
inbox="$PANETEAM_ROOT/teams/$PANETEAM_TEAM/inboxes/$PANETEAM_AGENT.json"
[ "$mode" = silent ] && exec sleep 2147483647
answered=
while :; do
	for id in $(grep -o 'shutdown-[0-9]*@[A-Za-z0-9_-]*' "$inbox" 2>/dev/null); do
		case " $answered " in *" $id "*) continue ;; esac
		answered="$answered $id"
		if [ "$mode" = approve ]; then
			exec "$pt" send --to team-lead --type shutdown_approved --request-id "$id"
		fi
		"$pt" send --to team-lead --type shutdown_rejected --request-id "$id" --reason "halfway through the parser"
	done
	sleep 0.05
done
`

// lcWorld is one test's team root and tmux server, and the environment
// that runs paneteam inside the server's guard pane.
type lcWorld struct {
	root, bin, script string
	srv               tmux.Server
	vars              []string
}

func newLCWorld(t *testing.T) *lcWorld {
	t.Helper()
	srv := testutil.TmuxServer(t)
	w := &lcWorld{root: testutil.Root(t), bin: testutil.Binary(t), srv: srv}
	w.script = filepath.Join(t.TempDir(), "teammate.sh")
	testutil.WriteExecutable(t, w.script, []byte(scriptedTeammate))
	w.vars = append(testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv)),
		"PANETEAM_ROOT="+w.root, "PANETEAM_TMUX_CONFIG=/dev/null", "TMUX_TMPDIR="+testutil.ShortTempDir(t))
	return w
}

func (w *lcWorld) run(t *testing.T, extra []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env = testutil.Env(append(append([]string{}, w.vars...), extra...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (w *lcWorld) must(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := w.run(t, nil, args...)
	if code != 0 {
		t.Fatalf("paneteam %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return strings.TrimSpace(out)
}

// spawn starts a scripted teammate and returns its pane id; mode
// "reference" is paneteam's reference teammate, which approves shutdown,
// and "plain" a program that never reads its inbox.
func (w *lcWorld) spawn(t *testing.T, teamName, name, mode string, flags ...string) string {
	t.Helper()
	args := append([]string{"spawn-pane", "--team", teamName, "--name", name, "--json"}, flags...)
	// The script reads its inbox and answers itself, which paneteam
	// cannot tell from its command line: --answers-shutdown says so.
	argv := []string{"--answers-shutdown", "--", "/bin/sh", w.script, mode, w.bin}
	if mode == "reference" {
		argv = []string{"--", w.bin, "teammate"}
	}
	out := w.must(t, append(args, argv...)...)
	var res struct {
		PaneID string `json:"pane_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("spawn-pane output %q: %v", out, err)
	}
	return res.PaneID
}

// panes lists the pane ids on a server ("" when it is not running).
func panes(srv tmux.Server) string {
	out, err := srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		return ""
	}
	return " " + strings.Join(strings.Fields(out), " ") + " "
}

func hasPane(srv tmux.Server, id string) bool { return strings.Contains(panes(srv), " "+id+" ") }

func members(t *testing.T, root, name string) string {
	t.Helper()
	cfg, err := team.Load(team.Team{Root: root, Name: name}.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(cfg.MemberNames(), ",")
}

func TestShutdownTeammatesInTmuxPanes(t *testing.T) {
	w := newLCWorld(t)
	lead := testutil.FirstPane(t, w.srv)
	tn := w.must(t, "team-create", "crew")
	alice := w.spawn(t, tn, "alice", "reference")
	erin := w.spawn(t, tn, "erin", "reference")
	bob := w.spawn(t, tn, "bob", "reject")
	carol := w.spawn(t, tn, "carol", "silent")

	_, errs, code := w.run(t, nil, "shutdown", "--team", tn, "--all", "--timeout", "8s")
	if code != ExitFailure || !strings.Contains(errs, "not shut down: bob, carol") {
		t.Fatalf("shutdown --all: exit %d, stderr %q", code, errs)
	}
	if hasPane(w.srv, alice) || hasPane(w.srv, erin) {
		t.Fatalf("approving teammates' panes still open: %s", panes(w.srv))
	}
	if !hasPane(w.srv, bob) || !hasPane(w.srv, carol) || !hasPane(w.srv, lead) {
		t.Fatalf("a refusing or silent teammate, or the lead, lost its pane: %s", panes(w.srv))
	}
	if got := members(t, w.root, tn); got != "team-lead,bob,carol" {
		t.Fatalf("members: %s", got)
	}
	// The answers were read; anything else the lead got (the reference
	// teammates' idle notifications) is still unread.
	// Read messages may have been moved to the inbox's archive.
	in := mailbox.New(team.Team{Root: w.root, Name: tn}.InboxPath(team.LeadName), lockOptsDefault())
	current, err := in.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	archived, err := in.Archived()
	if err != nil {
		t.Fatal(err)
	}
	answers := 0
	for _, m := range append(archived, current...) {
		p, _ := mailbox.Parse(m.Text)
		switch p.Type {
		case mailbox.TypeShutdownApproved, mailbox.TypeShutdownRejected:
			answers++
			if !m.Read {
				t.Errorf("answer left unread: %s", m.Text)
			}
		default:
			if m.Read {
				t.Errorf("shutdown marked another message read: %s", m.Text)
			}
		}
	}
	if answers != 3 {
		t.Fatalf("lead got %d shutdown answers, want 3 (alice, erin, bob)", answers)
	}

	out, _, code := w.run(t, nil, "shutdown", "--team", tn, "--name", "bob", "carol", "--timeout", "4s", "--force", "--json")
	if code != 0 {
		t.Fatalf("shutdown --force: exit %d: %s", code, out)
	}
	var res struct {
		Members []struct {
			Name, Answer string
			Forced       bool
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Members) != 2 || res.Members[0].Answer != "rejected" || res.Members[1].Answer != "none" || !res.Members[0].Forced || !res.Members[1].Forced {
		t.Fatalf("--json result: %s", out)
	}
	if hasPane(w.srv, bob) || hasPane(w.srv, carol) || !hasPane(w.srv, lead) {
		t.Fatalf("panes after --force: %s", panes(w.srv))
	}
	w.must(t, "cleanup", "--team", tn)
	tm := team.Team{Root: w.root, Name: tn}
	if _, err := os.Stat(tm.Dir()); err == nil {
		t.Fatal("team folder left after cleanup")
	}
	if !hasPane(w.srv, lead) {
		t.Fatal("cleanup closed the lead's pane")
	}
}

func TestCleanupRefusesActiveTeammatesUntilForced(t *testing.T) {
	w := newLCWorld(t)
	tn := w.must(t, "team-create", "crew")
	pane := w.spawn(t, tn, "alice", "silent")
	// A pane on the same server that paneteam did not make.
	mine, err := w.srv.Run(context.Background(), "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}

	_, errs, code := w.run(t, nil, "cleanup", "--team", tn)
	if code != ExitFailure || !strings.Contains(errs, "active members: alice") || !strings.Contains(errs, "paneteam shutdown --team "+tn+" --all") {
		t.Fatalf("cleanup with an active teammate: exit %d, %q", code, errs)
	}
	if !hasPane(w.srv, pane) {
		t.Fatal("refused cleanup closed a pane")
	}
	out := w.must(t, "cleanup", "--team", tn, "--force")
	if hasPane(w.srv, pane) || !hasPane(w.srv, mine) || !strings.Contains(out, "deleted") {
		t.Fatalf("cleanup --force: %q; panes %s", out, panes(w.srv))
	}
}

// outside drops TMUX and TMUX_PANE: paneteam then runs teammates on a
// private tmux server named for the lead (under TMUX_TMPDIR).
func (w *lcWorld) outside() *lcWorld {
	o := *w
	o.vars = nil
	for _, kv := range w.vars {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			o.vars = append(o.vars, kv)
		}
	}
	return &o
}

func (w *lcWorld) socketDir() string {
	for _, kv := range w.vars {
		if v, ok := strings.CutPrefix(kv, "TMUX_TMPDIR="); ok {
			real, _ := filepath.EvalSymlinks(v)
			return filepath.Join(real, "tmux-"+strconv.Itoa(os.Getuid()))
		}
	}
	panic("no TMUX_TMPDIR")
}

// leadProcess starts a process to stand for a team's lead.
func leadProcess(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func TestCleanupOrphans(t *testing.T) {
	ctx := context.Background()
	w := newLCWorld(t).outside()
	sockets := w.socketDir()
	repo := testutil.GitRepo(t)

	// A team whose lead dies, with two teammates on its private server;
	// bob works in a worktree and leaves unsaved work there.
	leadA := leadProcess(t)
	gone := w.must(t, "team-create", "gone", "--leader-pid", strconv.Itoa(leadA.Process.Pid))
	w.spawn(t, gone, "alice", "silent", "--backend", "tmux")
	w.spawn(t, gone, "bob", "silent", "--backend", "tmux", "--cwd", repo, "--worktree")
	goneSrv := tmux.Server{Socket: filepath.Join(sockets, backend.PrivateServerName(leadA.Process.Pid, team.Team{Root: w.root, Name: gone}))}
	bobTree := filepath.Join(repo, ".paneteam", "worktrees", gone, "bob")
	if cfg, _ := team.Load(team.Team{Root: w.root, Name: gone}.ConfigPath()); cfg.Member("bob").WorktreePath != bobTree {
		t.Fatalf("worktreePath not recorded: %+v", cfg.Member("bob"))
	}
	if err := os.WriteFile(filepath.Join(bobTree, "unsaved.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	leadA.Process.Kill()
	leadA.Wait()

	// A team whose lead pid now names another process (recorded start
	// time differs), and a live team beside them.
	leadB := leadProcess(t)
	reused := w.must(t, "team-create", "reused", "--leader-pid", strconv.Itoa(leadB.Process.Pid))
	w.spawn(t, reused, "carol", "silent", "--backend", "tmux")
	reusedSrv := tmux.Server{Socket: filepath.Join(sockets, backend.PrivateServerName(leadB.Process.Pid, team.Team{Root: w.root, Name: reused}))}
	if _, err := (team.Team{Root: w.root, Name: reused}).Update(ctx, lockOptsDefault(), func(c *team.Config) error {
		c.Paneteam.LeaderStart = "1"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	leadC := leadProcess(t)
	live := w.must(t, "team-create", "live", "--leader-pid", strconv.Itoa(leadC.Process.Pid))
	dave := w.spawn(t, live, "dave", "silent", "--backend", "tmux")
	liveSrv := tmux.Server{Socket: filepath.Join(sockets, backend.PrivateServerName(leadC.Process.Pid, team.Team{Root: w.root, Name: live}))}
	// The reaper must spare the live team's server, so the test stops it.
	for _, srv := range []tmux.Server{goneSrv, reusedSrv, liveSrv} {
		sock := srv.Socket
		t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	}

	// Claude Code's private server for a lead that is gone.
	dead := exec.Command("true")
	dead.Run()
	swarm := tmux.Server{Socket: filepath.Join(sockets, "claude-swarm-"+strconv.Itoa(dead.Process.Pid)), Config: "/dev/null"}
	if _, err := swarm.Run(ctx, "new-session", "-d", "-s", "claude-swarm"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", swarm.Socket, "kill-server").Run() })

	snapshot := func() string {
		return panes(goneSrv) + "|" + panes(reusedSrv) + "|" + panes(liveSrv) + "|" + panes(swarm) + "|" +
			members(t, w.root, gone) + "|" + members(t, w.root, reused) + "|" + members(t, w.root, live)
	}
	before := snapshot()
	out, errs, code := w.run(t, nil, "cleanup", "--orphans", "--dry-run", "--json")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errs)
	}
	var plan struct {
		Orphans []struct{ Team string }
		Servers []struct{ Socket string }
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Orphans) != 2 || plan.Orphans[0].Team != gone || plan.Orphans[1].Team != reused ||
		len(plan.Servers) != 1 || plan.Servers[0].Socket != swarm.Socket {
		t.Fatalf("dry-run plan: %s", out)
	}
	if after := snapshot(); after != before {
		t.Fatalf("dry run changed things:\n%s\n%s", before, after)
	}

	out, errs, code = w.run(t, nil, "cleanup", "--orphans")
	if code != ExitFailure || !strings.Contains(out+errs, bobTree) {
		t.Fatalf("cleanup --orphans: exit %d, output %q %q (want the kept worktree named)", code, out, errs)
	}
	if panes(goneSrv) != "" || panes(reusedSrv) != "" || panes(swarm) != "" {
		t.Fatalf("servers of gone leads still running: %q %q %q", panes(goneSrv), panes(reusedSrv), panes(swarm))
	}
	if _, err := os.Stat(swarm.Socket); err == nil {
		t.Fatal("socket of a reaped server left behind")
	}
	if _, err := os.Stat(reusedSrv.Socket + ".paneteam-lock"); err == nil {
		t.Fatal("pane lock file of a reaped private server left behind")
	}
	if _, err := os.Stat(liveSrv.Socket + ".paneteam-lock"); err != nil {
		t.Fatal("the live team's pane lock was removed")
	}
	if !hasPane(liveSrv, dave) || members(t, w.root, live) != "team-lead,dave" {
		t.Fatal("the live team was touched")
	}
	if _, err := os.Stat(filepath.Join(bobTree, "unsaved.go")); err != nil {
		t.Fatal("unsaved work in a worktree was lost")
	}
	if got := members(t, w.root, gone); got != "team-lead,bob" {
		t.Fatalf("the orphan with a kept worktree should stay with bob only: %s", got)
	}
	if _, err := os.Stat(team.Team{Root: w.root, Name: reused}.Dir()); err == nil {
		t.Fatal("orphan team folder left")
	}

	// Once the work is saved elsewhere, the next run finishes the job.
	os.Remove(filepath.Join(bobTree, "unsaved.go"))
	w.must(t, "cleanup", "--orphans")
	if _, err := os.Stat(bobTree); err == nil {
		t.Fatal("clean worktree not removed on the second run")
	}
	if _, err := os.Stat(team.Team{Root: w.root, Name: gone}.Dir()); err == nil {
		t.Fatal("orphan team folder left after the second run")
	}
	if out := w.must(t, "cleanup", "--orphans"); out != "" {
		t.Fatalf("a run with nothing to do printed %q (cron would mail it)", out)
	}
}

// TestScheduledCleanupCommandsRun runs the command lines scripts/ gives
// cron and systemd, so a renamed flag cannot break them silently.
func TestScheduledCleanupCommandsRun(t *testing.T) {
	bin := testutil.Binary(t)
	for file, prefix := range map[string]string{
		"paneteam-cleanup.crontab": "*/15 * * * * $HOME/go/bin/paneteam ",
		"paneteam-cleanup.service": "ExecStart=%h/go/bin/paneteam ",
	} {
		b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "scripts", file))
		if err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				args = strings.Fields(rest)
			}
		}
		if len(args) == 0 {
			t.Fatalf("%s: no line starting %q", file, prefix)
		}
		cmd := exec.Command(bin, append(args, "--dry-run")...)
		cmd.Env = testutil.Env("PANETEAM_ROOT="+testutil.Root(t), "TMUX_TMPDIR="+testutil.ShortTempDir(t))
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "nothing to clean up") {
			t.Fatalf("%s: paneteam %s: %v\n%s", file, strings.Join(args, " "), err, out)
		}
	}
}

// TestShutdownAcrossBackends: a teammate hosted in-process and one in a
// tmux pane both approve; both are ended through their own backend.
func TestShutdownAcrossBackends(t *testing.T) {
	w := newLCWorld(t)
	tn := w.must(t, "team-create", "mixed")
	pane := w.spawn(t, tn, "alice", "approve", "--backend", "tmux")
	w.spawn(t, tn, "bob", "approve", "--backend", "in-process")
	cfg, err := team.Load(team.Team{Root: w.root, Name: tn}.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	bob := cfg.Member("bob")
	if bob.BackendType != team.BackendInProcess || bob.Paneteam == nil || bob.Paneteam.PID == 0 {
		t.Fatalf("bob not hosted in-process: %+v", bob)
	}
	host := bob.Paneteam.PID
	w.must(t, "shutdown", "--team", tn, "--all", "--timeout", "10s")
	if hasPane(w.srv, pane) {
		t.Fatal("tmux teammate's pane still open")
	}
	if proc.Alive(host, bob.Paneteam.PIDStart) {
		t.Fatalf("in-process host %d still running", host)
	}
	if got := members(t, w.root, tn); got != "team-lead" {
		t.Fatalf("members: %s", got)
	}
}

// TestSpawnPaneWorktree: --worktree runs the teammate in its own worktree,
// recorded in config.json; shutdown removes it once nothing would be lost;
// outside a repository spawn-pane fails and adds no member.
func TestSpawnPaneWorktree(t *testing.T) {
	w := newLCWorld(t)
	repo := testutil.GitRepo(t)
	tn := w.must(t, "team-create", "trees")
	pane := w.spawn(t, tn, "alice", "reference", "--cwd", repo, "--worktree")
	tree := filepath.Join(repo, ".paneteam", "worktrees", tn, "alice")
	cfg, err := team.Load(team.Team{Root: w.root, Name: tn}.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Member("alice"); m.WorktreePath != tree || m.Cwd != tree {
		t.Fatalf("member: worktreePath %q cwd %q, want %q", m.WorktreePath, m.Cwd, tree)
	}
	cwd, err := w.srv.Run(context.Background(), "display-message", "-p", "-t", pane, "#{pane_current_path}")
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(tree); cwd != real && cwd != tree {
		t.Fatalf("teammate runs in %s, want its worktree %s", cwd, tree)
	}
	out := w.must(t, "shutdown", "--team", tn, "--name", "alice", "--timeout", "10s")
	if !strings.Contains(out, "worktree "+tree+" removed") {
		t.Fatalf("shutdown output: %q", out)
	}
	if _, err := os.Stat(tree); err == nil {
		t.Fatal("clean worktree left after shutdown")
	}
	if b, _ := exec.Command("git", "-C", repo, "branch", "--list", "paneteam/*").Output(); len(b) != 0 {
		t.Fatalf("branch left: %s", b)
	}

	_, errs, code := w.run(t, nil, "spawn-pane", "--team", tn, "--name", "bob", "--cwd", t.TempDir(), "--worktree", "--", w.bin, "teammate")
	if code == 0 || !strings.Contains(errs, "not in a git repository") {
		t.Fatalf("--worktree outside a repository: exit %d, %q", code, errs)
	}
	if got := members(t, w.root, tn); got != "team-lead" {
		t.Fatalf("failed spawn left a member: %s", got)
	}

	// From a subfolder of a linked worktree: the teammate's worktree
	// starts from that worktree's commit, in the same subfolder.
	linked := filepath.Join(t.TempDir(), "feature")
	gitT(t, repo, "worktree", "add", "-q", "-b", "feature", linked)
	os.MkdirAll(filepath.Join(linked, "pkg"), 0o755)
	os.WriteFile(filepath.Join(linked, "pkg", "f.go"), []byte("package pkg\n"), 0o644)
	gitT(t, linked, "add", ".")
	gitT(t, linked, "commit", "-q", "-m", "feature")
	w.spawn(t, tn, "carol", "reference", "--cwd", filepath.Join(linked, "pkg"), "--worktree")
	carol := filepath.Join(repo, ".paneteam", "worktrees", tn, "carol")
	cfg, err = team.Load(team.Team{Root: w.root, Name: tn}.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Member("carol"); m.WorktreePath != carol || m.Cwd != filepath.Join(carol, "pkg") {
		t.Errorf("from a linked worktree's subfolder: worktreePath %q cwd %q, want %q and its pkg", m.WorktreePath, m.Cwd, carol)
	}
	if got, want := gitT(t, carol, "rev-parse", "HEAD"), gitT(t, linked, "rev-parse", "HEAD"); got != want {
		t.Errorf("carol's worktree starts at %s, want the linked worktree's %s", got, want)
	}
}
