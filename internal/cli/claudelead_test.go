package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// claudeLedTeam writes a session team led by a live stand-in for Claude
// Code (a sleep whose environment holds extraEnv) and returns the root,
// the vars of a caller outside tmux, and the team.
func claudeLedTeam(t *testing.T, extraEnv []string, members ...testutil.Member) (string, map[string]string, team.Team) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, extraEnv...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	root, vars := ptRootVars(t)
	testutil.ClaudeTeam(t, root, "session-0b8c1d2e", testutil.LeadFor(t, cmd.Process.Pid), members...)
	return root, vars, team.Team{Root: root, Name: "session-0b8c1d2e"}
}

func tmuxVars(t *testing.T, srv tmux.Server, pane string) []string {
	return testutil.TmuxEnv(t, srv, pane)
}

func TestStatusTellsWhoLeadsAndRunsWhat(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	carolPane, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	// Claude Code's lead runs inside tmux: its $TMUX names the server.
	env := tmuxVars(t, srv, testutil.FirstPane(t, srv))[:1]
	root, vars, _ := claudeLedTeam(t, env,
		testutil.ClaudeInProcessTeammate("bob"),
		testutil.ClaudePaneTeammate("carol", carolPane),
		testutil.ClaudePaneTeammate("dan", "%999"),
	)
	if _, errs, code := ptRun(t, vars, "", "team-create", "ours", "--leader-pid", strconv.Itoa(os.Getpid())); code != 0 {
		t.Fatal(errs)
	}
	testutil.ClaudeTeam(t, root, "session-deadbeef", testutil.DeadClaudeLead(t), testutil.ClaudeInProcessTeammate("zed"))

	var teams []teamStatus
	out := ptRunTTY(t, vars, false, "status", "--json")
	if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 3 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	byTeam := map[string]teamStatus{}
	for _, ts := range teams {
		byTeam[ts.Name] = ts
	}
	claude, ours, dead := byTeam["session-0b8c1d2e"], byTeam["ours"], byTeam["session-deadbeef"]
	if l := claude.Lead; l == nil || l.By != team.LedByClaude || l.State != team.LeadAlive {
		t.Fatalf("Claude's live session: lead %+v", claude.Lead)
	}
	if l := ours.Lead; l == nil || l.By != team.LedByPaneteam || l.State != team.LeadAlive || l.PID != int64(os.Getpid()) {
		t.Fatalf("paneteam's team: lead %+v", ours.Lead)
	}
	if l := dead.Lead; l == nil || l.By != team.LedByClaude || l.State != team.LeadDead {
		t.Fatalf("a crashed session: lead %+v", dead.Lead)
	}
	want := map[string][2]string{
		"team-lead": {team.RunByLead, paneAlive},
		"bob":       {team.RunByClaudeInProcess, paneAlive},
		"carol":     {team.RunByClaudePane, paneAlive},
		"dan":       {team.RunByClaudePane, paneDead},
	}
	for _, m := range claude.Members {
		if w := want[m.Name]; m.RunBy != w[0] || m.Pane != w[1] {
			t.Errorf("%s: run by %s, %s (%s); want %v", m.Name, m.RunBy, m.Pane, m.PaneError, w)
		}
	}
	if m := dead.Members[1]; m.Name != "zed" || m.Pane != paneDead {
		t.Errorf("an in-process teammate of a dead lead: %+v", m)
	}
	text := ptRunTTY(t, vars, false, "status", "--team", "session-0b8c1d2e")
	for _, s := range []string{"lead: Claude Code, process", "alive", "claude (in-process)", "claude (pane)"} {
		if !strings.Contains(text, s) {
			t.Errorf("status text lacks %q:\n%s", s, text)
		}
	}
}

func TestSaidNotHiddenWhenClaudesLeadDoesNotPoll(t *testing.T) {
	_, vars, tm := claudeLedTeam(t, nil)
	old := mailbox.Message{From: "human", Text: "are you there?", Timestamp: mailbox.Timestamp(time.Now().Add(-time.Minute))}
	if err := mailbox.New(tm.InboxPath(team.LeadName), lockOptsDefault()).Send(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	var teams []teamStatus
	if err := json.Unmarshal([]byte(ptRunTTY(t, vars, false, "status", "--json")), &teams); err != nil {
		t.Fatal(err)
	}
	if w := teams[0].LeadInbox; w == nil || !w.Unpolled || w.Unread != 1 {
		t.Fatalf("lead inbox: %+v", teams[0].LeadInbox)
	}
	if text := ptRunTTY(t, vars, false, "status"); !strings.Contains(text, "only once it has spawned a teammate") {
		t.Fatalf("status text says nothing:\n%s", text)
	}
	_, errs, code := ptRun(t, vars, "", "send", "--team", tm.Name, "--to", "team-lead", "hello")
	if code != 0 || !strings.Contains(errs, "only once it has spawned a teammate") {
		t.Fatalf("send: exit %d, stderr %q", code, errs)
	}

	// Once Claude's lead has a teammate of its own it polls: nothing to say.
	if _, err := tm.Update(context.Background(), lockOptsDefault(), func(c *team.Config) error {
		c.Members = append(c.Members, team.Member{Name: "bob", AgentID: "bob@" + c.Name, TmuxPaneID: team.InProcessPaneID, BackendType: team.BackendInProcess})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var after []teamStatus
	if err := json.Unmarshal([]byte(ptRunTTY(t, vars, false, "status", "--json")), &after); err != nil || after[0].LeadInbox != nil {
		t.Fatalf("lead with a teammate: %+v %v", after[0].LeadInbox, err)
	}
	if _, errs, _ := ptRun(t, vars, "", "send", "--team", tm.Name, "--to", "team-lead", "hello"); strings.Contains(errs, "spawned a teammate") {
		t.Fatalf("send noted a lead that polls: %q", errs)
	}
}

func TestSendNeverImpersonatesAClaudeLead(t *testing.T) {
	_, vars, tm := claudeLedTeam(t, nil, testutil.ClaudeInProcessTeammate("bob"))
	last := func() mailbox.Message {
		msgs := inboxOf(t, tm, "bob")
		return msgs[len(msgs)-1]
	}
	with := func(kv ...string) map[string]string {
		v := map[string]string{}
		for k, x := range vars {
			v[k] = x
		}
		for i := 0; i < len(kv); i += 2 {
			v[kv[i]] = kv[i+1]
		}
		return v
	}
	if _, errs, code := ptRun(t, vars, "", "send", "--team", tm.Name, "--to", "bob", "one"); code != 0 || last().From != "human" || errs != "" {
		t.Fatalf("default sender: exit %d, from %q, stderr %q", code, last().From, errs)
	}
	if _, errs, code := ptRun(t, with("PANETEAM_USER", "alex"), "", "send", "--team", tm.Name, "--to", "bob", "two"); code != 0 || last().From != "alex" {
		t.Fatalf("PANETEAM_USER: exit %d, from %q, %s", code, last().From, errs)
	}
	if _, errs, code := ptRun(t, with("PANETEAM_AGENT", "carol"), "", "send", "--team", tm.Name, "--to", "bob", "three"); code != 0 || last().From != "carol" {
		t.Fatalf("inside a teammate: exit %d, from %q, %s", code, last().From, errs)
	}
	for _, bad := range []string{"team-lead", "Team Lead", "SYSTEM", "user", "bob"} {
		n := len(inboxOf(t, tm, "bob"))
		_, errs, code := ptRun(t, with("PANETEAM_USER", bad), "", "send", "--team", tm.Name, "--to", "bob", "four")
		if code != ExitUsage || !strings.Contains(errs, "PANETEAM_USER") || len(inboxOf(t, tm, "bob")) != n {
			t.Errorf("PANETEAM_USER=%s: exit %d, stderr %q", bad, code, errs)
		}
	}
	_, errs, code := ptRun(t, vars, "", "send", "--team", tm.Name, "--to", "bob", "--from", "team-lead", "five")
	if code != 0 || last().From != "team-lead" || !strings.Contains(errs, `verified="false"`) {
		t.Fatalf("--from team-lead: exit %d, from %q, stderr %q", code, last().From, errs)
	}

	// A team paneteam leads: paneteam speaks for the lead, as before.
	ptRun(t, vars, "", "team-create", "ours")
	ptAddMember(t, vars["PANETEAM_ROOT"], "ours", "alice")
	ours := team.Team{Root: vars["PANETEAM_ROOT"], Name: "ours"}
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "ours", "--to", "alice", "hi"); code != 0 || inboxOf(t, ours, "alice")[0].From != team.LeadName {
		t.Fatalf("paneteam's own team: exit %d %q", code, errs)
	}
}

func TestClaudesOwnTeammatesAreRefusedAtOnce(t *testing.T) {
	_, vars, tm := claudeLedTeam(t, nil, testutil.ClaudeInProcessTeammate("bob"), testutil.ClaudePaneTeammate("carol", "%5"))
	for _, args := range [][]string{
		{"shutdown", "--team", tm.Name, "--name", "bob"},
		{"shutdown", "--team", tm.Name, "carol"},
		{"kill-pane", "--team", tm.Name, "--name", "carol"},
		{"kill-pane", "--team", tm.Name, "--name", "bob"},
		{"hide", "--team", tm.Name, "--name", "carol"},
	} {
		start := time.Now()
		_, errs, code := ptRun(t, vars, "", args...)
		if code != ExitFailure || !strings.Contains(errs, "started by Claude Code") || !strings.Contains(errs, "Ask Claude's lead") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%v took %s: it should refuse at once", args, d)
		}
	}
	if msgs := inboxOf(t, tm, "bob"); len(msgs) != 0 {
		t.Fatalf("a refused shutdown wrote to bob: %+v", msgs)
	}
	out, errs, code := ptRun(t, vars, "", "shutdown", "--team", tm.Name, "--all", "--timeout", "1s")
	if code != 0 || !strings.Contains(out, "bob: left alone") || !strings.Contains(out, "carol: left alone") {
		t.Fatalf("shutdown --all: exit %d, %q %q", code, out, errs)
	}
	_, cfg, _ := team.Open(tm.Root, tm.Name)
	if len(cfg.Members) != 3 {
		t.Fatalf("members changed: %v", cfg.MemberNames())
	}
}

// A teammate paneteam spawns into Claude's session team: its pane splits
// beside Claude's own pane, its prompt comes from the spawner, and it is
// paneteam's to shut down, its exit counting as its answer.
func TestSpawnIntoClaudesTeam(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	claudePane, err := srv.Run(ctx, "new-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sh -c 'sleep 600 & wait'")
	if err != nil {
		t.Fatal(err)
	}
	pp, _ := srv.PanePID(ctx, claudePane)
	ppid, _ := strconv.Atoi(pp)
	claude := testutil.ChildPID(t, ppid)
	root, vars := ptRootVars(t)
	testutil.ClaudeTeam(t, root, "session-12345678", testutil.LeadFor(t, claude))
	tm := team.Team{Root: root, Name: "session-12345678"}
	// The person runs paneteam from another pane (the guard's).
	for _, kv := range tmuxVars(t, srv, testutil.FirstPane(t, srv)) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	vars["PANETEAM_USER"] = "alex"
	vars["PATH"] = os.Getenv("PATH")
	inbox := tm.InboxPath("w")
	script := `while ! grep -q shutdown_request "$0" 2>/dev/null; do sleep 0.1; done; exit 0`
	out, errs, code := ptRun(t, vars, "", "spawn-pane", "--team", tm.Name, "--name", "w", "--prompt", "start", "--json", "--answers-shutdown", "--", "sh", "-c", script, inbox)
	if code != 0 {
		t.Fatalf("spawn-pane: exit %d %s %s", code, out, errs)
	}
	var res spawnResult
	json.Unmarshal([]byte(out), &res)
	win := func(p string) string {
		w, _ := srv.Run(ctx, "display-message", "-p", "-t", p, "#{window_id}")
		return w
	}
	if win(res.PaneID) != win(claudePane) {
		t.Fatalf("pane %s went to window %s, not beside Claude's pane %s (%s)", res.PaneID, win(res.PaneID), claudePane, win(claudePane))
	}
	if msgs := inboxOf(t, tm, "w"); len(msgs) != 1 || msgs[0].From != "alex" {
		t.Fatalf("prompt: %+v", msgs)
	}
	out, errs, code = ptRun(t, vars, "", "shutdown", "--team", tm.Name, "--name", "w", "--timeout", "20s")
	if code != 0 || !strings.Contains(out, "exited (taken as its approval)") {
		t.Fatalf("shutdown: exit %d %q %q", code, out, errs)
	}
	if msgs := inboxOf(t, tm, "w"); len(msgs) < 2 || msgs[1].From != team.LeadName {
		t.Fatalf("the shutdown request is paneteam's one write as team-lead: %+v", msgs)
	}
	if _, cfg, _ := team.Open(root, tm.Name); cfg.Member("w") != nil {
		t.Fatal("w still a member")
	}
}

// A task given an owner tells the owner with a task_assignment message:
// in Claude's session team it is from the person, not from team-lead.
func TestTaskAssignmentNeverImpersonatesAClaudeLead(t *testing.T) {
	_, vars, tm := claudeLedTeam(t, nil, testutil.ClaudeInProcessTeammate("bob"))
	if _, errs, code := ptRun(t, vars, "", "task", "create", "--team", tm.Name, "--subject", "fix it", "--owner", "bob"); code != 0 {
		t.Fatal(errs)
	}
	if msgs := inboxOf(t, tm, "bob"); len(msgs) != 1 || msgs[0].From != team.DefaultUser {
		t.Fatalf("task_assignment: %+v", msgs)
	}
}

func TestCleanupOrphansReapsCrashedClaudeSessionsAfterGrace(t *testing.T) {
	root, vars := ptRootVars(t)
	vars["TMUX_TMPDIR"] = testutil.ShortTempDir(t)
	testutil.ClaudeTeam(t, root, "session-dead0001", testutil.DeadClaudeLead(t))
	_, live := testutil.LiveClaudeLead(t)
	testutil.ClaudeTeam(t, root, "session-live0002", live)

	out := ptRunTTY(t, vars, false, "cleanup", "--orphans", "--dry-run")
	if !strings.Contains(out, "left alone: team session-dead0001") || !strings.Contains(out, "claude --resume") ||
		!strings.Contains(out, "left alone: team session-live0002") {
		t.Fatalf("dry run within the grace period:\n%s", out)
	}
	out = ptRunTTY(t, vars, false, "cleanup", "--orphans", "--older-than", "0", "--dry-run")
	if !strings.Contains(out, "orphan team session-dead0001") || !strings.Contains(out, "would be deleted") {
		t.Fatalf("dry run without grace:\n%s", out)
	}
	if !exists(t, root+"/teams/session-dead0001/config.json") {
		t.Fatal("dry run deleted the team")
	}
	ptRunTTY(t, vars, false, "cleanup", "--orphans", "--older-than", "0")
	if exists(t, root+"/teams/session-dead0001") || !exists(t, root+"/teams/session-live0002/config.json") {
		t.Fatal("cleanup --orphans: the dead session should go and the live one stay")
	}
	_, errs, code := ptRun(t, vars, "", "cleanup", "--team", "session-live0002")
	if code != ExitFailure || !strings.Contains(errs, "Claude Code deletes it itself") || !exists(t, root+"/teams/session-live0002/config.json") {
		t.Fatalf("cleanup --team of a live session: exit %d %q", code, errs)
	}
}

func exists(t *testing.T, p string) bool {
	t.Helper()
	_, err := os.Stat(p)
	return err == nil
}

// A live Claude Code lead with no teammate of its own reads its inbox late:
// status notes the messages that have waited more than a few seconds (a
// fresh one may still be read), and says nothing once the lead has one.
func TestStatusNotesALeadThatReadsLate(t *testing.T) {
	root, vars, tm := claudeLedTeam(t, nil)
	inbox := mailbox.New(tm.InboxPath(team.LeadName), lockOptsDefault())
	for _, age := range []time.Duration{time.Minute, 0} {
		if err := inbox.Append(context.Background(), mailbox.Message{From: "human", Text: "hi", Timestamp: mailbox.Timestamp(time.Now().Add(-age))}); err != nil {
			t.Fatal(err)
		}
	}
	var teams []teamStatus
	if err := json.Unmarshal([]byte(ptRunTTY(t, vars, false, "status", "--json")), &teams); err != nil || len(teams) != 1 {
		t.Fatalf("status --json: %v %+v", err, teams)
	}
	if w := teams[0].LeadInbox; w == nil || w.Unread != 1 || !w.Unpolled {
		t.Fatalf("leadInbox = %+v, want the one old message, unpolled", w)
	}
	if out := ptRunTTY(t, vars, false, "status"); !strings.Contains(out, "note: 1 message(s) to team-lead unread: Claude Code reads its inbox only once") {
		t.Fatalf("status says nothing of the waiting message:\n%s", out)
	}
	testutil.ClaudeTeam(t, root, tm.Name, testutil.LeadFor(t, os.Getpid()), testutil.ClaudeInProcessTeammate("bob"))
	if out := ptRunTTY(t, vars, false, "status"); strings.Contains(out, "note:") {
		t.Fatalf("a lead with a teammate of its own still has the note:\n%s", out)
	}
}
