package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
)

// landRepo is a repository on main with a.txt, and worktrees given to
// the team's alice and bob that both change a.txt's second line.
func landRepo(t *testing.T, vars map[string]string, names ...string) (string, map[string]worktree.Record) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = Person\n\temail = person@example.com\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := t.TempDir()
	gitT(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644)
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "first")
	state := t.TempDir()
	vars["PANETEAM_STATE_DIR"] = state
	recs := map[string]worktree.Record{}
	for _, n := range names {
		wt, err := worktree.Create(context.Background(), repo, "t", n)
		if err != nil {
			t.Fatal(err)
		}
		r := worktree.Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base, Team: "t", Member: n, Via: worktree.ViaSpawnPane}
		if err := worktree.OpenRecords(state).Write(r); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(wt.Path, "a.txt"), []byte("one\n"+strings.ToUpper(n)+"\nthree\nfour\nfive\n"), 0o644)
		gitT(t, wt.Path, "commit", "-q", "-am", n+" changes line two")
		recs[n] = r
	}
	t.Chdir(repo)
	return repo, recs
}

func lastText(t *testing.T, msgs []mailbox.Message) string {
	t.Helper()
	if len(msgs) == 0 {
		t.Fatal("no message")
	}
	return msgs[len(msgs)-1].Text
}

// The loop as a person runs it: review shows both teammates conflicting
// with each other, a comment reaches alice quoting her line, alice lands,
// bob is refused naming the file and the next command, --ask tells him,
// he brings his branch up to date, and lands; the printed undo works.
func TestReviewCommentLandLoop(t *testing.T) {
	_, vars, tm := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice", "bob")

	out, errs, code := ptRun(t, vars, "", "review", "--json")
	if code != 0 {
		t.Fatalf("review --json: exit %d %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	for _, k := range []string{"name", "branch", "ahead", "uncommitted", "clean", "conflictsWith", "conflictFiles"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("review --json has no %q: %s", k, out)
		}
	}
	if rows[0]["name"] != "alice" || rows[0]["ahead"] != 1.0 || rows[0]["clean"] != true ||
		!strings.Contains(out, `"conflictsWith": [
      "bob"`) || !strings.Contains(out, `"conflictFiles": [
      "a.txt"`) {
		t.Errorf("review --json does not say alice is 1 ahead, clean on main and conflicting with bob in a.txt:\n%s", out)
	}
	text, _, _ := ptRun(t, vars, "", "review")
	if !strings.Contains(text, "alice conflicts with bob (files: a.txt)") || !strings.Contains(text, "lands cleanly") {
		t.Errorf("review:\n%s", text)
	}
	diff, _, _ := ptRun(t, vars, "", "review", "alice")
	if !strings.Contains(diff, "# alice: committed on paneteam/t/alice") || !strings.Contains(diff, "+ALICE") {
		t.Errorf("review alice shows no committed diff:\n%s", diff)
	}

	if _, errs, code := ptRun(t, vars, "", "review", "alice", "--comment", "a.txt:2", "why shout?"); code != 0 {
		t.Fatalf("review --comment: exit %d %s", code, errs)
	}
	msg := lastText(t, inboxOf(t, tm, "alice"))
	if !strings.Contains(msg, "a.txt:2: why shout?") || !strings.Contains(msg, ">    2 | ALICE") || !strings.Contains(msg, "     1 | one") {
		t.Errorf("the comment does not quote the line with context:\n%s", msg)
	}

	out, errs, code = ptRun(t, vars, "", "land", "alice")
	if code != 0 || !strings.Contains(out, "landed alice (merge) on main") || !strings.Contains(out, "undo: git -C") {
		t.Fatalf("land alice: exit %d\n%s%s", code, out, errs)
	}
	before := gitT(t, repo, "rev-parse", "HEAD")

	_, errs, code = ptRun(t, vars, "", "land", "bob")
	if code == 0 || !strings.Contains(errs, "a.txt") || !strings.Contains(errs, "paneteam land --team t bob --ask") {
		t.Errorf("land bob after alice: exit %d, stderr %q; want a refusal naming a.txt and --ask", code, errs)
	}
	if head := gitT(t, repo, "rev-parse", "HEAD"); head != before {
		t.Errorf("a refused land moved HEAD")
	}
	if _, errs, code := ptRun(t, vars, "", "land", "bob", "--ask"); code != 0 {
		t.Fatalf("land --ask: %s", errs)
	}
	if msg := lastText(t, inboxOf(t, tm, "bob")); !strings.Contains(msg, "conflicts with main") || !strings.Contains(msg, "a.txt") {
		t.Errorf("bob was not asked to update: %q", msg)
	}
	exec.Command("git", "-C", recs["bob"].Path, "merge", "main").Run() //nolint:errcheck
	os.WriteFile(filepath.Join(recs["bob"].Path, "a.txt"), []byte("one\nALICE BOB\nthree\nfour\nfive\n"), 0o644)
	gitT(t, recs["bob"].Path, "commit", "-q", "-am", "bob resolves")
	out, errs, code = ptRun(t, vars, "", "land", "bob", "--squash")
	if code != 0 {
		t.Fatalf("land bob after he updated: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); !strings.Contains(string(b), "ALICE BOB") {
		t.Errorf("a.txt after both landed: %q", b)
	}
	// The printed undo puts main back where it was before bob's land
	// and his branch back.
	undo := strings.TrimSpace(out[strings.Index(out, "undo: ")+len("undo: "):])
	if out, err := exec.Command("sh", "-c", undo).CombinedOutput(); err != nil {
		t.Fatalf("undo %q: %v\n%s", undo, err, out)
	}
	if head := gitT(t, repo, "rev-parse", "HEAD"); head != before {
		t.Errorf("after the undo HEAD is %s, want %s", head, before)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "one\nALICE\nthree\nfour\nfive\n" {
		t.Errorf("a.txt after the undo: %q", b)
	}
	gitT(t, repo, "rev-parse", "--verify", "refs/heads/paneteam/t/bob")
}

// A teammate still running is refused, with the command that stops it.
func TestLandRefusesARunningTeammate(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice")
	r := recs["alice"]
	r.PID = os.Getpid()
	r.PIDStart, _ = proc.StartTime(r.PID)
	worktree.OpenRecords(vars["PANETEAM_STATE_DIR"]).Forget(r.Path)
	if err := worktree.OpenRecords(vars["PANETEAM_STATE_DIR"]).Write(r); err != nil {
		t.Fatal(err)
	}
	before := gitT(t, repo, "rev-parse", "HEAD")
	_, errs, code := ptRun(t, vars, "", "land", "alice")
	if code == 0 || !strings.Contains(errs, "still running") || !strings.Contains(errs, "paneteam shutdown --team t alice") {
		t.Errorf("land of a running teammate: exit %d, %q", code, errs)
	}
	if gitT(t, repo, "rev-parse", "HEAD") != before {
		t.Errorf("a refused land moved HEAD")
	}

	// One Claude's lead started ('paneteam claude --worktree' records no
	// spawn-pane) only that lead can stop: the refusal says to ask it,
	// not to run a --stop or shutdown that would be refused.
	worktree.OpenRecords(vars["PANETEAM_STATE_DIR"]).Forget(r.Path)
	r.Via = ""
	if err := worktree.OpenRecords(vars["PANETEAM_STATE_DIR"]).Write(r); err != nil {
		t.Fatal(err)
	}
	_, errs, code = ptRun(t, vars, "", "land", "alice")
	if code == 0 || !strings.Contains(errs, "still running") || !strings.Contains(errs, "ask Claude's lead") ||
		strings.Contains(errs, "--stop") || strings.Contains(errs, "paneteam shutdown") {
		t.Errorf("land of a running teammate of Claude's lead: exit %d, %q", code, errs)
	}
}

// The merge queue: a dry run changes nothing; the queue lands alice,
// skips bob (his change conflicts with hers), tells him why, and prints
// a table and the undo.
func TestLandAllQueueTellsTheSkipped(t *testing.T) {
	_, vars, tm := msgTeam(t)
	repo, _ := landRepo(t, vars, "alice", "bob")
	before := gitT(t, repo, "rev-parse", "HEAD")
	out, errs, code := ptRun(t, vars, "", "land", "--all", "--dry-run")
	if code != 0 || !strings.Contains(out, "would land") || !strings.Contains(out, "conflict") || !strings.Contains(out, "dry run: nothing changed") {
		t.Fatalf("land --all --dry-run: exit %d\n%s%s", code, out, errs)
	}
	if gitT(t, repo, "rev-parse", "HEAD") != before || len(inboxOf(t, tm, "bob")) != 0 {
		t.Fatal("a dry run changed the branch or told someone")
	}
	out, errs, code = ptRun(t, vars, "", "land", "--all", "--test", "true")
	if code != 0 || !strings.Contains(out, "landed") || !strings.Contains(out, "conflict") || !strings.Contains(out, "undo: git -C") {
		t.Fatalf("land --all: exit %d\n%s%s", code, out, errs)
	}
	if msg := lastText(t, inboxOf(t, tm, "bob")); !strings.Contains(msg, "conflicts with main in: a.txt") {
		t.Errorf("bob was not told why he was skipped: %q", msg)
	}
}

// A teammate running in a real tmux pane is refused with --stop named;
// land --stop asks it to shut down, waits for it to end, and lands.
func TestLandStopsARunningTeammateInTmux(t *testing.T) {
	w := newLCWorld(t)
	state := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = Person\n\temail = person@example.com\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	w.vars = append(w.vars, "PANETEAM_STATE_DIR="+state, "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1")
	repo := testutil.GitRepo(t)
	t.Chdir(repo)
	tn := w.must(t, "team-create", "landing")
	pane := w.spawn(t, tn, "alice", "reference", "--cwd", repo, "--worktree")
	tree := filepath.Join(repo, ".paneteam", "worktrees", tn, "alice")
	pidText, err := w.srv.Run(context.Background(), "display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(pidText))
	start, _ := proc.StartTime(pid)
	r := worktree.Record{Repo: repo, Path: tree, Branch: worktree.Branch(tn, "alice"), Base: gitT(t, repo, "rev-parse", "HEAD"),
		Root: w.root, Team: tn, Member: "alice", PID: pid, PIDStart: start, Via: worktree.ViaSpawnPane}
	if err := worktree.OpenRecords(state).Write(r); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tree, "done.txt"), []byte("done\n"), 0o644)
	gitT(t, tree, "add", ".")
	gitT(t, tree, "commit", "-q", "-m", "alice's work")

	_, errs, code := w.run(t, nil, "land", "alice")
	if code == 0 || !strings.Contains(errs, "still running") || !strings.Contains(errs, "--stop") {
		t.Fatalf("land of a running teammate: exit %d, %q", code, errs)
	}
	out, errs, code := w.run(t, nil, "land", "alice", "--stop")
	if code != 0 || !strings.Contains(out, "landed alice (merge) on main") || !strings.Contains(errs, "alice has shut down") {
		t.Fatalf("land --stop: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "done.txt")); string(b) != "done\n" {
		t.Errorf("done.txt after land --stop: %q", b)
	}
	if hasPane(w.srv, pane) {
		t.Errorf("the teammate's pane %s is still open after land --stop", pane)
	}
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("the landed teammate's worktree stays: %v", err)
	}
}

// Two attempts at one task: --compare shows how they differ; land A
// --drop B lands A and removes B, but keeps B while it has commits of its
// own, named, and says how to drop it anyway.
func TestLandDropTheOtherAttempt(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice", "bob")
	out, _, code := ptRun(t, vars, "", "review", "--compare", "alice", "bob")
	if code != 0 || !strings.Contains(out, "-ALICE") || !strings.Contains(out, "+BOB") {
		t.Errorf("review --compare alice bob: exit %d\n%s", code, out)
	}
	out, errs, code := ptRun(t, vars, "", "land", "alice", "--drop", "bob")
	if code == 0 || !strings.Contains(out, "landed alice") || !strings.Contains(errs, "bob changes line two") ||
		!strings.Contains(errs, "paneteam worktrees --remove t/bob --force") {
		t.Errorf("land alice --drop bob (with a commit of its own): exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(recs["bob"].Path); err != nil {
		t.Errorf("bob's worktree with a commit of its own went: %v", err)
	}

	// carol started the task but made nothing: she goes.
	wt, err := worktree.Create(context.Background(), repo, "t", "carol")
	if err != nil {
		t.Fatal(err)
	}
	worktree.OpenRecords(vars["PANETEAM_STATE_DIR"]).Write(worktree.Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base, Team: "t", Member: "carol"})
	gitT(t, recs["bob"].Path, "merge", "-q", "--no-edit", "-X", "ours", "main") // bob brings his branch up to date
	if out, errs, code := ptRun(t, vars, "", "land", "bob", "--drop", "carol"); code != 0 || !strings.Contains(errs, "dropped carol's worktree") {
		t.Errorf("land bob --drop carol: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
		t.Errorf("carol's untouched worktree stays after --drop")
	}
}

// File names are the teammates': two that conflict in a file whose name
// holds a terminal escape see it named in review as text, never obeyed.
func TestReviewShowsTeammatesFileNamesAsText(t *testing.T) {
	_, vars, _ := msgTeam(t)
	_, recs := landRepo(t, vars, "alice", "bob")
	evil := "x\x1b]0;owned\x07.txt"
	for i, n := range []string{"alice", "bob"} {
		p := recs[n].Path
		os.WriteFile(filepath.Join(p, evil), []byte(strings.Repeat("z", i+1)+"\n"), 0o644)
		gitT(t, p, "add", ".")
		gitT(t, p, "commit", "-q", "-m", n+" adds a file")
	}
	out, errs, code := ptRun(t, vars, "", "review")
	if code != 0 {
		t.Fatalf("review: exit %d %s", code, errs)
	}
	if strings.ContainsRune(out, '\x1b') || strings.ContainsRune(out, '\x07') {
		t.Fatalf("review wrote a teammate's escape to the terminal: %q", out)
	}
	if !strings.Contains(out, "owned") {
		t.Fatalf("review does not name the conflicting file:\n%s", out)
	}
}

// --drop of a teammate still running lands nothing, and says who can
// stop it: paneteam shutdown, or Claude's lead for one it started.
func TestLandDropRefusesARunningOther(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice", "bob")
	before := gitT(t, repo, "rev-parse", "HEAD")
	store := worktree.OpenRecords(vars["PANETEAM_STATE_DIR"])
	for _, tc := range []struct{ via, want string }{
		{worktree.ViaSpawnPane, "paneteam shutdown --team t bob"},
		{"", "ask Claude's lead"},
	} {
		r := recs["bob"]
		r.PID = os.Getpid()
		r.PIDStart, _ = proc.StartTime(r.PID)
		r.Via = tc.via
		store.Forget(r.Path)
		if err := store.Write(r); err != nil {
			t.Fatal(err)
		}
		_, errs, code := ptRun(t, vars, "", "land", "alice", "--drop", "bob")
		if code == 0 || !strings.Contains(errs, "nothing was landed") || !strings.Contains(errs, tc.want) {
			t.Errorf("land alice --drop a running bob (via %q): exit %d, %q; want %q", tc.via, code, errs, tc.want)
		}
		if gitT(t, repo, "rev-parse", "HEAD") != before {
			t.Fatalf("a refused land moved HEAD")
		}
	}
}

// land --all's move refused at its end (a file of the person's the land
// changes) names the next command as a single land does, and fails the
// run with --json as without.
func TestLandAllRefusedMoveNamesTheNextCommandAndFails(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, _ := landRepo(t, vars, "alice")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("mine\n"), 0o644)
	before := gitT(t, repo, "rev-parse", "HEAD")
	out, errs, code := ptRun(t, vars, "", "land", "--all")
	if code != 1 || !strings.Contains(errs, "a.txt") || !strings.Contains(errs, "commit or stash them (git stash), then: paneteam land --all") {
		t.Fatalf("land --all onto a dirty a.txt: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = ptRun(t, vars, "", "land", "--all", "--json")
	var row struct {
		Error string `json:"error"`
		Moved bool   `json:"moved"`
	}
	if err := json.Unmarshal([]byte(out), &row); err != nil || code != 1 || row.Error == "" || row.Moved {
		t.Fatalf("land --all --json onto a dirty a.txt: exit %d, %+v (%v)\n%s%s", code, row, err, out, errs)
	}
	if gitT(t, repo, "rev-parse", "HEAD") != before {
		t.Fatal("a refused land --all moved the branch")
	}
}
