package land

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// remote gives the fixture's repository a bare repository on disk as
// origin, main pushed there and tracked.
func (f *fixture) remote(name string) string {
	f.t.Helper()
	bare := filepath.Join(f.t.TempDir(), name+".git")
	f.git(f.repo, "init", "-q", "--bare", bare)
	f.git(f.repo, "remote", "add", name, bare)
	f.git(f.repo, "push", "-q", "-u", name, "main")
	return bare
}

// ghLog is what the stand-in gh recorded of its one call.
type ghLog struct{ dir string }

func (g ghLog) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(g.dir, name))
	return string(b)
}

// argv is gh's arguments, one each.
func (g ghLog) argv() []string {
	return strings.Split(strings.TrimSuffix(g.read("argv"), "\x00"), "\x00")
}

func (g ghLog) called() bool { _, err := os.Stat(filepath.Join(g.dir, "argv")); return err == nil }

// standInGH writes a gh that records its arguments, stdin, folder and
// environment, and prints a pull request's URL (or, failing, an error of
// GitHub's on stderr and exit 1). It never reaches the network.
func standInGH(t *testing.T, fail bool) (string, ghLog) {
	t.Helper()
	bin, log := t.TempDir(), ghLog{t.TempDir()}
	end := "echo 'https://github.com/o/r/pull/7'\n"
	if fail {
		end = "echo 'Warning: 1 uncommitted change' >&2\necho 'pull request create failed: GraphQL: No commits between main and the branch (createPullRequest)' >&2\nexit 1\n"
	}
	script := fmt.Sprintf("#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\0' \"$a\"; done > %[1]s/argv\ncat > %[1]s/stdin\npwd > %[1]s/pwd\nenv > %[1]s/env\n%[2]s", log.dir, end)
	p := filepath.Join(bin, "gh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p, log
}

func (f *fixture) pr(r worktree.Record, gh, report string) (*PRResult, error) {
	f.t.Helper()
	l, err := FindLead(context.Background(), f.repo)
	if err != nil {
		f.t.Fatal(err)
	}
	return PullRequest(context.Background(), PRRequest{Lead: l, Record: r, Records: f.recs, GH: gh, Report: report, Env: os.Environ()})
}

func (f *fixture) remoteRef(bare, branch string) string {
	out, _ := exec.Command("git", "-C", bare, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Output()
	return strings.TrimSpace(string(out))
}

// The branch reaches the remote, gh gets the report's first line as the
// title and the report and commits as the body, and nothing of the
// lead's moves; the worktree stays.
func TestPullRequestPushesAndOpensItWithGH(t *testing.T) {
	f := newFixture(t)
	bare := f.remote("origin")
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	f.commit(r.Path, "parser: keep the error", map[string]string{"c.txt": "sea\nmore\n"})
	f.write(f.repo, "a.txt", "mine\n") // the lead's own uncommitted change
	state := f.leadState()
	gh, log := standInGH(t, false)

	res, err := f.pr(r, gh, "The parser keeps its error now\n\nI made c.txt and tested it.")
	if err != nil {
		t.Fatal(err)
	}
	tip := f.git(f.repo, "rev-parse", r.Branch)
	if got := f.remoteRef(bare, r.Branch); got != tip || !res.Pushed {
		t.Errorf("the remote's %s is %q, want the teammate's tip %s (pushed %v)", r.Branch, got, tip, res.Pushed)
	}
	if res.URL != "https://github.com/o/r/pull/7" || res.Remote != "origin" || res.Base != "main" {
		t.Errorf("result: url %q remote %q base %q", res.URL, res.Remote, res.Base)
	}
	argv := log.argv()
	want := []string{"pr", "create", "--head", r.Branch, "--base", "main", "--title=The parser keeps its error now", "--body-file", "-"}
	if strings.Join(argv, "|") != strings.Join(want, "|") {
		t.Errorf("gh got %q, want %q", argv, want)
	}
	body := log.read("stdin")
	for _, s := range []string{"The parser keeps its error now\n\nI made c.txt and tested it.", "alice's work", "parser: keep the error", "Commits (2)"} {
		if !strings.Contains(body, s) {
			t.Errorf("gh's body lacks %q:\n%s", s, body)
		}
	}
	if pwd := strings.TrimSpace(log.read("pwd")); !samePath(pwd, f.repo) {
		t.Errorf("gh ran in %s, want the lead's folder %s", pwd, f.repo)
	}
	if !strings.Contains(log.read("env"), "GH_PROMPT_DISABLED=1") {
		t.Errorf("gh may prompt: no GH_PROMPT_DISABLED in its environment")
	}
	if got := f.leadState(); got != state {
		t.Errorf("--pr changed the lead:\nbefore %s\nafter  %s", state, got)
	}
	if _, err := os.Stat(r.Path); err != nil {
		t.Errorf("the teammate's worktree went: %v", err)
	}
	if rec, _ := f.recs.Read(r.Path); rec == nil {
		t.Errorf("the teammate's record went")
	}
}

// Without a report the single commit's subject is the title; without gh
// the branch is pushed and the call to run is returned.
func TestPullRequestWithoutGHPushesAndSaysWhatToRun(t *testing.T) {
	f := newFixture(t)
	bare := f.remote("origin")
	f.git(f.repo, "remote", "set-url", "origin", "git@github.com:paneteam/demo.git")
	f.git(f.repo, "remote", "set-url", "--push", "origin", bare)
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	res, err := f.pr(r, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if f.remoteRef(bare, r.Branch) == "" || !res.Pushed || res.URL != "" {
		t.Fatalf("without gh: pushed %v, url %q, remote has %q", res.Pushed, res.URL, f.remoteRef(bare, r.Branch))
	}
	if res.Title != "alice's work" {
		t.Errorf("title %q, want the single commit's subject", res.Title)
	}
	if got := strings.Join(res.GHArgs, " "); !strings.Contains(got, "gh pr create --head paneteam/t/alice --base main --repo github.com/paneteam/demo --title=alice's work") {
		t.Errorf("the call to run: %s", got)
	}
	if !strings.HasPrefix(res.CompareURL, "https://github.com/paneteam/demo/compare/main...paneteam/t/alice?expand=1&title=alice%27s+work&body=") {
		t.Errorf("compare URL %s", res.CompareURL)
	}
}

// A gh that fails: the branch stays pushed, and its stderr's tail says why.
func TestPullRequestFailingGHSaysTheBranchIsPushed(t *testing.T) {
	f := newFixture(t)
	bare := f.remote("origin")
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	gh, _ := standInGH(t, true)
	res, err := f.pr(r, gh, "")
	var ge *GHError
	if !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "No commits between") || res == nil || !res.Pushed {
		t.Fatalf("failing gh: %v (result %+v), want a GHError carrying its stderr and the branch pushed", err, res)
	}
	if !strings.Contains(err.Error(), "is pushed to origin") || f.remoteRef(bare, r.Branch) == "" {
		t.Errorf("the failure does not say the branch is pushed, or it is not: %v", err)
	}
}

// A remote whose branch of that name has other commits refuses the
// push; nothing of the lead's or the remote's changes, and gh never runs.
func TestPullRequestRejectedPushNamesTheFix(t *testing.T) {
	f := newFixture(t)
	bare := f.remote("origin")
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	other := t.TempDir()
	f.git(other, "clone", "-q", bare, ".")
	f.commit(other, "someone else's", map[string]string{"d.txt": "dee\n"})
	f.git(other, "push", "-q", "origin", "HEAD:refs/heads/"+r.Branch)
	theirs := f.remoteRef(bare, r.Branch)
	state := f.leadState()
	gh, log := standInGH(t, false)

	_, err := f.pr(r, gh, "")
	var re *PushRejectedError
	if !errors.As(err, &re) || !re.Diverged() || re.Remote != "origin" {
		t.Fatalf("push over another branch: %v, want a PushRejectedError saying the remote has other commits", err)
	}
	if f.remoteRef(bare, r.Branch) != theirs || f.leadState() != state || log.called() {
		t.Errorf("a refused push changed the remote or the lead, or ran gh")
	}
}

// The person's pre-push hook runs; one that fails stops the push and is
// named with its output.
func TestPullRequestFailingPrePushHookStopsIt(t *testing.T) {
	f := newFixture(t)
	bare := f.remote("origin")
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	f.write(f.repo, ".git/hooks/pre-push", "#!/bin/sh\necho 'secrets found' >&2\nexit 1\n")
	os.Chmod(filepath.Join(f.repo, ".git/hooks/pre-push"), 0o755)
	gh, log := standInGH(t, false)
	_, err := f.pr(r, gh, "")
	var he *PushHookError
	if !errors.As(err, &he) || he.Hook != "pre-push" || !strings.Contains(he.Output, "secrets found") {
		t.Fatalf("failing pre-push: %v, want a PushHookError naming it with its output", err)
	}
	if f.remoteRef(bare, r.Branch) != "" || log.called() {
		t.Errorf("the branch reached the remote or gh ran despite the hook")
	}
}

// The remote is the lead branch's upstream's, else origin's; none is a
// refusal; a branch with nothing new is one too.
func TestPullRequestChoosesTheRemoteAndRefusesNothing(t *testing.T) {
	f := newFixture(t)
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	_, err := f.pr(r, "", "")
	var ne *NoRemoteError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "git remote add origin URL") {
		t.Fatalf("no remote: %v", err)
	}
	f.remote("origin")
	up := f.remote("up") // main now tracks up
	res, err := f.pr(r, "", "")
	if err != nil || res.Remote != "up" || f.remoteRef(up, r.Branch) == "" {
		t.Fatalf("with main tracking up: %v, remote %v", err, res)
	}

	bob, err := worktree.Create(context.Background(), f.repo, "t", "bob")
	if err != nil {
		t.Fatal(err)
	}
	br := worktree.Record{Repo: bob.Repo, Path: bob.Path, Branch: bob.Branch, Base: bob.Base, Team: "t", Member: "bob"}
	_, err = f.pr(br, "", "")
	var nothing *NothingToPushError
	if !errors.As(err, &nothing) || nothing.Held {
		t.Fatalf("a branch with no commit: %v, want NothingToPushError", err)
	}
}

func TestParseRemoteURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/o/r.git":          "github.com/o/r",
		"https://user@github.com/o/r":         "github.com/o/r",
		"git@github.com:o/r.git":              "github.com/o/r",
		"ssh://git@ghe.example.com:22/o/my_r": "ghe.example.com/o/my_r",
		"/srv/git/r.git":                      "",
		"file:///srv/git/o/r.git":             "",
		"../r.git":                            "",
		"https://github.com/o/r/extra":        "",
		"https://github.com/-o/r":             "",
		"git@github.com:o/r\x1b.git":          "",
	} {
		if got := parseRemoteURL(in); got != want {
			t.Errorf("parseRemoteURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The report is the teammate's latest plain message to the lead, archived
// ones counted, protocol messages and others' left out; reading it
// writes nothing and marks nothing read.
func TestReportReadsTheLatestMessageWithoutMarkingIt(t *testing.T) {
	tm := team.Team{Root: t.TempDir(), Name: "t"}
	os.MkdirAll(tm.InboxDir(), 0o700)
	in := mailbox.New(tm.InboxPath("team-lead"), lockfile.Options{})
	idle, _ := mailbox.Text(mailbox.IdleNotification{Type: mailbox.TypeIdle, From: "alice"})
	os.WriteFile(in.ArchivePath(), []byte(`{"from":"alice","text":"old report","timestamp":"2026-01-01T00:00:00.000Z","read":true}`+"\n"), 0o600)
	if err := in.Append(context.Background(),
		mailbox.Message{From: "alice", Text: "done: the parser\n\ndetails", Timestamp: "2026-01-02T00:00:00.000Z"},
		mailbox.Message{From: "bob", Text: "bob's", Timestamp: "2026-01-03T00:00:00.000Z"},
		mailbox.Message{From: "alice", Text: idle, Timestamp: "2026-01-04T00:00:00.000Z"},
		// A second idle notice: a reader that summarised them would
		// rewrite the inbox.
		mailbox.Message{From: "alice", Text: idle, Timestamp: "2026-01-05T00:00:00.000Z"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(in.Path)
	st, _ := os.Stat(in.Path)
	m, ok, err := Report(tm, "team-lead", "alice")
	if err != nil || !ok || m.Text != "done: the parser\n\ndetails" {
		t.Fatalf("Report = %q %v %v, want alice's latest plain message", m.Text, ok, err)
	}
	after, _ := os.ReadFile(in.Path)
	st2, _ := os.Stat(in.Path)
	if string(after) != string(before) || !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("reading the report rewrote the lead's inbox")
	}
	if _, ok, _ := Report(tm, "team-lead", "carol"); ok {
		t.Errorf("a report for a teammate that sent none")
	}
	os.Remove(in.Path)
	if m, ok, _ := Report(tm, "team-lead", "alice"); !ok || m.Text != "old report" {
		t.Errorf("an archived report is not found: %q", m.Text)
	}
}

// A remote's own hook that refuses is the remote's refusal, not a hook
// of the person's (a remote on this disk runs under the same trace).
func TestPullRequestRemoteHookRefusalIsTheRemotes(t *testing.T) {
	f := newFixture(t)
	bare := f.remote("origin")
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	f.write(bare, "hooks/pre-receive", "#!/bin/sh\necho 'branch names are checked here' >&2\nexit 1\n")
	os.Chmod(filepath.Join(bare, "hooks/pre-receive"), 0o755)
	_, err := f.pr(r, "", "")
	var re *PushRejectedError
	if !errors.As(err, &re) || re.Diverged() || !strings.Contains(re.Reason, "refused by the remote") || !strings.Contains(re.Output, "branch names are checked here") {
		t.Fatalf("a remote's pre-receive hook refusing: %v, want a PushRejectedError with the remote's words", err)
	}
}
