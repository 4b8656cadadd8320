package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/sys/proc"
)

// prRemote makes a bare repository on disk the lead's origin, main pushed
// there and tracked, and returns it.
func prRemote(t *testing.T, repo string) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "origin.git")
	gitT(t, repo, "init", "-q", "--bare", bare)
	gitT(t, repo, "remote", "add", "origin", bare)
	gitT(t, repo, "push", "-q", "-u", "origin", "main")
	return bare
}

// standInGH puts first on vars' PATH a gh that records its arguments
// (NUL-separated), stdin and folder in a folder of the test's and prints
// a pull request's URL, or fails as GitHub's would. No network.
func standInGH(t *testing.T, vars map[string]string, fail bool) string {
	t.Helper()
	bin, log := t.TempDir(), t.TempDir()
	end := "echo 'https://github.com/o/r/pull/7'\n"
	if fail {
		end = "echo 'pull request create failed: GraphQL: Head sha can\\x27t be blank \x1b[31m(createPullRequest)' >&2\nexit 1\n"
	}
	script := fmt.Sprintf("#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\0' \"$a\"; done > %[1]s/argv\ncat > %[1]s/stdin\npwd > %[1]s/pwd\n%[2]s", log, end)
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	vars["PATH"] = bin + ":/usr/bin:/bin"
	return log
}

func readLog(t *testing.T, log, name string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(log, name))
	return string(b)
}

// prLeadState is what --pr must leave alone: HEAD, the branches, the
// index and the working tree's status.
func prLeadState(t *testing.T, repo string) string {
	t.Helper()
	index, _ := os.ReadFile(filepath.Join(repo, ".git", "index"))
	return strings.Join([]string{gitT(t, repo, "symbolic-ref", "HEAD"), gitT(t, repo, "rev-parse", "HEAD"),
		gitT(t, repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"),
		gitT(t, repo, "status", "--porcelain=v1", "--untracked-files=all"), string(index)}, "\n")
}

// The teammate reports to the lead; land --pr pushes its branch, gives
// gh the report's first line as the title and the report and commits as
// the body, names the URL, and leaves the lead's repository, the
// teammate's worktree and the lead's inbox (nothing marked read) as they
// were. The report is the teammate's text: its escape never reaches the
// terminal.
func TestLandPROpensARequestFromTheTeammatesReport(t *testing.T) {
	_, vars, tm := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice")
	bare := prRemote(t, repo)
	log := standInGH(t, vars, false)
	report := "Line two is ALICE now \x1b]0;owned\x07\n\nI changed a.txt and checked it."
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "alice", report); code != 0 {
		t.Fatalf("alice's report: %s", errs)
	}
	inbox := tm.InboxPath("team-lead")
	inboxBefore, _ := os.ReadFile(inbox)
	os.WriteFile(filepath.Join(repo, "mine.txt"), []byte("the lead's own\n"), 0o644)
	state := prLeadState(t, repo)

	out, errs, code := ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 0 {
		t.Fatalf("land alice --pr: exit %d\n%s%s", code, out, errs)
	}
	if strings.ContainsAny(out+errs, "\x1b\x07") {
		t.Errorf("the teammate's report reached the terminal raw: %q", out)
	}
	for _, s := range []string{"pushed paneteam/t/alice to origin", "opened a pull request: https://github.com/o/r/pull/7",
		"title (from its last message to team-lead", `$'Line two is ALICE now \x1b]0;owned\x07'`, "nothing has landed", recs["alice"].Path} {
		if !strings.Contains(out, s) {
			t.Errorf("land --pr's output lacks %q:\n%s", s, out)
		}
	}
	if got, tip := gitT(t, bare, "rev-parse", "refs/heads/paneteam/t/alice"), gitT(t, repo, "rev-parse", "paneteam/t/alice"); got != tip {
		t.Errorf("the remote's branch is at %s, want the teammate's %s", got, tip)
	}
	argv := strings.Split(readLog(t, log, "argv"), "\x00")
	if !contains(argv, "--title=Line two is ALICE now \x1b]0;owned\x07") || !contains(argv, "--head") || !contains(argv, "paneteam/t/alice") {
		t.Errorf("gh's arguments: %q", argv)
	}
	body := readLog(t, log, "stdin")
	if !strings.Contains(body, "I changed a.txt and checked it.") || !strings.Contains(body, "alice changes line two") {
		t.Errorf("gh's body lacks the report or the commit:\n%s", body)
	}
	if got := prLeadState(t, repo); got != state {
		t.Errorf("--pr changed the lead's repository:\nbefore %s\nafter  %s", state, got)
	}
	if _, err := os.Stat(recs["alice"].Path); err != nil {
		t.Errorf("the teammate's worktree went: %v", err)
	}
	if after, _ := os.ReadFile(inbox); string(after) != string(inboxBefore) {
		t.Errorf("reading the report rewrote the lead's inbox")
	}
	if msgs := inboxOf(t, tm, "team-lead"); len(msgs) != 1 || msgs[0].Read {
		t.Errorf("the report was marked read: %+v", msgs)
	}

	// --json: the same call again finds the branch up to date.
	out, errs, code = ptRun(t, vars, "", "land", "alice", "--pr", "--json")
	var row map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &row) != nil {
		t.Fatalf("land --pr --json: exit %d\n%s%s", code, out, errs)
	}
	if row["name"] != "alice" || row["branch"] != "paneteam/t/alice" || row["remote"] != "origin" || row["pushed"] != true ||
		row["url"] != "https://github.com/o/r/pull/7" {
		t.Errorf("land --pr --json: %s", out)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// No gh on PATH: the branch is pushed and the call to run is printed.
func TestLandPRWithoutGHPrintsTheCommand(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, _ := landRepo(t, vars, "alice")
	bare := prRemote(t, repo)
	vars["PATH"] = t.TempDir()
	out, errs, code := ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 0 || !strings.Contains(out, "gh is not installed") || !strings.Contains(out, "title (from its commit's subject)") ||
		!strings.Contains(out, "gh pr create --head paneteam/t/alice --base main '--title=alice changes line two' $'--body=Commits (1):\\n") {
		t.Fatalf("land --pr without gh: exit %d\n%s%s", code, out, errs)
	}
	gitT(t, bare, "rev-parse", "--verify", "refs/heads/paneteam/t/alice")

	// -m gives the title; one starting with a dash is still one argument.
	out, errs, code = ptRun(t, vars, "", "land", "alice", "--pr", "-m", "-x: the parser")
	if code != 0 || !strings.Contains(out, "title (from --message): -x: the parser") || !strings.Contains(out, "'--title=-x: the parser'") {
		t.Errorf("land --pr -m: exit %d\n%s%s", code, out, errs)
	}
}

// A gh that fails: exit 1, what gh said (shown as text), and that the
// branch is pushed.
func TestLandPRFailingGHSaysTheBranchIsPushed(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, _ := landRepo(t, vars, "alice")
	bare := prRemote(t, repo)
	standInGH(t, vars, true)
	out, errs, code := ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 1 || !strings.Contains(errs, "Head sha can") || !strings.Contains(errs, "is pushed to origin") ||
		!strings.Contains(errs, "open it by hand: gh pr create") || strings.ContainsRune(errs, '\x1b') {
		t.Fatalf("land --pr with a failing gh: exit %d\n%s%s", code, out, errs)
	}
	gitT(t, bare, "rev-parse", "--verify", "refs/heads/paneteam/t/alice")
}

// Refusals: with a land's flags, with no remote, and a push the remote
// rejects or a pre-push hook stops; each names the next command.
func TestLandPRRefusals(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, _ := landRepo(t, vars, "alice")
	log := standInGH(t, vars, false)
	for _, flag := range []string{"--squash", "--rebase", "--all", "--drop=bob"} {
		_, errs, code := ptRun(t, vars, "", "land", "alice", "--pr", flag)
		name, _, _ := strings.Cut(flag, "=")
		if code != 2 || !strings.Contains(errs, name+" does not go with it") {
			t.Errorf("land --pr %s: exit %d %q", flag, code, errs)
		}
	}
	_, errs, code := ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 1 || !strings.Contains(errs, "git remote add origin URL") {
		t.Errorf("land --pr with no remote: exit %d %q", code, errs)
	}

	bare := prRemote(t, repo)
	other := t.TempDir()
	gitT(t, other, "clone", "-q", bare, ".")
	os.WriteFile(filepath.Join(other, "d.txt"), []byte("dee\n"), 0o644)
	gitT(t, other, "add", ".")
	gitT(t, other, "commit", "-q", "-m", "someone else's")
	gitT(t, other, "push", "-q", "origin", "HEAD:refs/heads/paneteam/t/alice")
	state := prLeadState(t, repo)
	_, errs, code = ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 1 || !strings.Contains(errs, "origin refused the push of paneteam/t/alice") || !strings.Contains(errs, "git push --force-with-lease origin paneteam/t/alice") {
		t.Errorf("land --pr over another branch on the remote: exit %d %q", code, errs)
	}
	gitT(t, other, "push", "-q", "origin", ":refs/heads/paneteam/t/alice")

	hook := filepath.Join(repo, ".git", "hooks", "pre-push")
	os.WriteFile(hook, []byte("#!/bin/sh\necho 'tests fail' >&2\nexit 1\n"), 0o755)
	_, errs, code = ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 1 || !strings.Contains(errs, "your git hook pre-push failed, so nothing was pushed: tests fail") {
		t.Errorf("land --pr with a failing pre-push hook: exit %d %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(log, "argv")); err == nil {
		t.Errorf("gh ran though nothing was pushed")
	}
	if got := prLeadState(t, repo); got != state {
		t.Errorf("a refused --pr changed the lead's repository")
	}
}

// As a land: a teammate still running is refused (--stop named), and one
// with uncommitted files (--include-uncommitted named, which commits them
// on its branch and pushes that).
func TestLandPRRefusesARunningOrUncommittedTeammate(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice")
	bare := prRemote(t, repo)
	vars["PATH"] = t.TempDir()
	r := recs["alice"]
	running := r
	running.PID = os.Getpid()
	running.PIDStart, _ = proc.StartTime(running.PID)
	store := worktree.OpenRecords(vars["PANETEAM_STATE_DIR"])
	store.Forget(r.Path)
	if err := store.Write(running); err != nil {
		t.Fatal(err)
	}
	_, errs, code := ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 1 || !strings.Contains(errs, "still running") || !strings.Contains(errs, "paneteam land --team t alice --pr --stop") {
		t.Errorf("land --pr of a running teammate: exit %d %q", code, errs)
	}
	store.Forget(r.Path)
	store.Write(r)

	os.WriteFile(filepath.Join(r.Path, "wip.txt"), []byte("wip\n"), 0o644)
	_, errs, code = ptRun(t, vars, "", "land", "alice", "--pr")
	if code != 1 || !strings.Contains(errs, "wip.txt") || !strings.Contains(errs, "--pr --include-uncommitted") {
		t.Errorf("land --pr with uncommitted files: exit %d %q", code, errs)
	}
	if out, _ := exec.Command("git", "-C", bare, "rev-parse", "--verify", "--quiet", "refs/heads/paneteam/t/alice").Output(); len(out) > 0 {
		t.Errorf("a refused --pr pushed the branch")
	}
	out, errs, code := ptRun(t, vars, "", "land", "alice", "--pr", "--include-uncommitted")
	if code != 0 || !strings.Contains(out, "committed alice's uncommitted files") {
		t.Fatalf("land --pr --include-uncommitted: exit %d\n%s%s", code, out, errs)
	}
	if got := gitT(t, bare, "show", "refs/heads/paneteam/t/alice:wip.txt"); got != "wip" {
		t.Errorf("the pushed branch lacks the committed file: %q", got)
	}
}

// --include-uncommitted commits before the push: a push the pre-push
// hook refuses says that commit was made, in the person's name, and is
// on the teammate's branch.
func TestLandPRRefusedPushSaysTheCommitItMade(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice")
	prRemote(t, repo)
	vars["PATH"] = t.TempDir()
	os.WriteFile(filepath.Join(repo, ".git", "hooks", "pre-push"), []byte("#!/bin/sh\necho 'tests fail' >&2\nexit 1\n"), 0o755)
	os.WriteFile(filepath.Join(recs["alice"].Path, "wip.txt"), []byte("wip\n"), 0o644)
	_, errs, code := ptRun(t, vars, "", "land", "alice", "--pr", "--include-uncommitted")
	tip := gitT(t, repo, "rev-parse", "--short=12", "paneteam/t/alice")
	if code != 1 || !strings.Contains(errs, "tests fail") || !strings.Contains(errs, "committed alice's uncommitted files on paneteam/t/alice as "+tip+", in your name") {
		t.Fatalf("land --pr --include-uncommitted refused by pre-push: exit %d %q; want the commit %s named", code, errs, tip)
	}
	if got := gitT(t, repo, "show", "paneteam/t/alice:wip.txt"); got != "wip" {
		t.Errorf("the commit on alice's branch lacks wip.txt: %q", got)
	}
}
