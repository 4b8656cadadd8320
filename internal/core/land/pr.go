package land

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// A pull request instead of a land: the teammate's branch is pushed to
// the person's remote and `gh pr create` opens the request. Nothing of
// the lead's moves (its working tree, index, HEAD and branches), and the
// teammate's worktree and branch stay: nothing has landed.

// PRRequest is one pull request to open.
type PRRequest struct {
	Lead    Lead
	Record  worktree.Record
	Records worktree.Records
	// Remote is the remote to push to; "" is the lead branch's upstream
	// remote, else origin.
	Remote string
	// IncludeUncommitted commits the teammate's uncommitted files on its
	// branch first, as Land does, instead of refusing.
	IncludeUncommitted bool
	// Report is what the teammate said of its work (its last message to
	// the lead), "" when it said nothing. Its first line is the title.
	Report string
	// Title replaces the title Report or the commits give.
	Title string
	// GH is the gh program to run; "" when it is not installed: the
	// branch is pushed and the call is returned for the person to run.
	GH string
	// Env is gh's environment (git's is this process's, as for a land).
	Env []string
}

// PRResult is a branch pushed and the pull request opened for it.
type PRResult struct {
	Name   string `json:"name"`
	Branch string `json:"branch"`
	Remote string `json:"remote"`
	Pushed bool   `json:"pushed"`
	// URL is the pull request's, as gh printed it; "" when none was
	// opened.
	URL string `json:"url"`
	// Existing is true when gh found a pull request open for the branch
	// already (URL is that one's).
	Existing bool `json:"existing,omitempty"`
	// Base is the branch the request asks to be merged into ("" on a
	// detached lead: the repository's default).
	Base  string `json:"base"`
	Tip   string `json:"tip"`
	Title string `json:"title"`
	// TitleFrom says where the title came from: "given" (Title),
	// "report", "commit" (the single commit's subject) or "commits".
	TitleFrom string   `json:"titleFrom"`
	Body      string   `json:"body"`
	Commits   []string `json:"commits"` // "abbrev subject", oldest first
	// Committed is the commit made of the teammate's uncommitted files.
	Committed string `json:"committed,omitempty"`
	// Conflicts are the files that conflict with the lead's branch as it
	// is now: the request is opened anyway, and its reviewers will see.
	Conflicts []string `json:"conflicts,omitempty"`
	// GHArgs is gh's arguments (gh itself first; the body is given on
	// stdin, `--body-file -`); CompareURL the remote's page that opens
	// the same request in a browser, when the remote is a GitHub-style
	// host. Both are for a person to run when gh is missing or failed.
	GHArgs     []string `json:"gh,omitempty"`
	CompareURL string   `json:"compareUrl,omitempty"`
}

// GHTimeout bounds one gh call (it talks to the network).
const GHTimeout = 2 * time.Minute

// maxTitle is GitHub's limit on a pull request's title.
const maxTitle = 256

// PullRequest pushes req.Record's branch to the person's remote and
// opens a pull request for it with gh. A refusal is returned before
// anything is pushed, with the result when the teammate's uncommitted
// files were committed on its branch first (Committed). A gh that fails
// returns the result (the branch is pushed) with a *GHError.
func PullRequest(ctx context.Context, req PRRequest) (*PRResult, error) {
	r, l := req.Record, req.Lead
	if r.Running() {
		return nil, StillRunning(r)
	}
	res, err := pushBranch(ctx, req)
	if err != nil {
		return res, err
	}
	repo := remoteRepo(ctx, l.Dir, res.Remote)
	res.GHArgs = ghArgs(res, repo)
	res.CompareURL = compareURL(repo, res)
	if req.GH == "" {
		return res, nil
	}
	return res, openPR(ctx, req, res)
}

// pushBranch checks there is work to push and pushes it, holding the
// repository's lock (a land may be taking the same branch). Once it has
// committed the teammate's uncommitted files, a refusal comes with the
// result, whose Committed names that commit: it stays on the branch.
func pushBranch(ctx context.Context, req PRRequest) (*PRResult, error) {
	res, err := pushWork(ctx, req)
	if res != nil && res.Committed == "" && err != nil {
		return nil, err
	}
	return res, err
}

// pushWork is pushBranch, with a result once it holds anything.
func pushWork(ctx context.Context, req PRRequest) (*PRResult, error) {
	r, l := req.Record, req.Lead
	unlock, err := req.Records.LockRepo(ctx, l.Common)
	if err != nil {
		return nil, fmt.Errorf("wait for the repository's lands and worktrees: %w", err)
	}
	defer unlock()
	res := &PRResult{Name: r.Member, Branch: r.Branch}
	if res.Remote, res.Base, err = chooseRemote(ctx, l, req.Remote); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(r.Path); err == nil {
		if !sameRepo(ctx, l.Common, r.Path) {
			return nil, &OtherRepoError{Lead: l.Dir, Repo: r.Repo}
		}
		if res.Committed, err = commitUncommitted(ctx, Request{Record: r, IncludeUncommitted: req.IncludeUncommitted}); err != nil {
			return nil, err
		}
	}
	if res.Tip, err = git(ctx, l.Dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch+"^{commit}"); err != nil {
		return res, fmt.Errorf("the teammate's branch %s is gone: %w", r.Branch, err)
	}
	if err := somethingToPush(ctx, l, r, res.Tip); err != nil {
		return res, err
	}
	if res.Commits, err = commitList(ctx, l.Dir, l.Head, res.Tip); err != nil {
		return res, err
	}
	res.Title, res.TitleFrom, res.Body = prText(req, res)
	if _, files, err := mergeTree(ctx, l.Dir, l.Head, res.Tip); err == nil {
		res.Conflicts = files
	}
	if err := push(ctx, l.Dir, res.Remote, r.Branch); err != nil {
		return res, err
	}
	res.Pushed = true
	return res, nil
}

// chooseRemote is the remote to push to and the branch the request is
// for: the one asked for, else the lead branch's upstream remote, else
// origin. The base is the upstream's branch when the lead's branch
// tracks one on that remote, else the lead's branch by its own name.
func chooseRemote(ctx context.Context, l Lead, asked string) (remote, base string, err error) {
	remotes, err := git(ctx, l.Dir, "remote")
	if err != nil {
		return "", "", err
	}
	list := lines(remotes)
	has := func(n string) bool {
		for _, r := range list {
			if r == n {
				return true
			}
		}
		return false
	}
	upstream, merge := "", ""
	if l.Branch != "" {
		upstream, _ = git(ctx, l.Dir, "config", "--get", "branch."+l.Branch+".remote")
		merge, _ = git(ctx, l.Dir, "config", "--get", "branch."+l.Branch+".merge")
	}
	switch {
	case asked != "":
		if !has(asked) {
			return "", "", &UnknownRemoteError{Name: asked, Remotes: list}
		}
		remote = asked
	case upstream != "" && upstream != "." && has(upstream):
		remote = upstream
	case has("origin"):
		remote = "origin"
	default:
		return "", "", &NoRemoteError{Dir: l.Dir, Remotes: list}
	}
	base = l.Branch
	if b, ok := strings.CutPrefix(merge, "refs/heads/"); ok && remote == upstream {
		base = b
	}
	return remote, base, nil
}

// somethingToPush refuses a branch with no commit of its own, or one
// whose every change the lead's branch holds already.
func somethingToPush(ctx context.Context, l Lead, r worktree.Record, tip string) error {
	n, err := git(ctx, l.Dir, "rev-list", "--count", l.Head+".."+tip)
	if err != nil {
		return err
	}
	if n == "0" {
		return &NothingToPushError{Member: r.Member, Branch: r.Branch, Onto: l.branchOrHead()}
	}
	held, err := holds(ctx, l.Dir, l.Head, tip)
	if err != nil {
		return err
	}
	if held {
		return &NothingToPushError{Member: r.Member, Branch: r.Branch, Onto: l.branchOrHead(), Held: true}
	}
	return nil
}

func (l Lead) branchOrHead() string {
	if l.Branch != "" {
		return l.Branch
	}
	return "HEAD"
}

// maxListed is how many commits a request's body lists.
const maxListed = 50

// commitList is "abbrev subject" of each commit of tip the lead lacks,
// oldest first.
func commitList(ctx context.Context, dir, head, tip string) ([]string, error) {
	out, err := git(ctx, dir, "log", "--reverse", "--format=%h %s", head+".."+tip)
	if err != nil {
		return nil, err
	}
	return lines(out), nil
}

// prText is the request's title and body: the teammate's report (its
// first line the title) and the list of its commits; without a report,
// the single commit's subject, or a line naming the teammate.
func prText(req PRRequest, res *PRResult) (title, from, body string) {
	r := req.Record
	report := strings.TrimSpace(strings.ReplaceAll(req.Report, "\r\n", "\n"))
	first, _, _ := strings.Cut(report, "\n")
	switch {
	case req.Title != "":
		title, from = req.Title, "given"
	case strings.TrimSpace(first) != "":
		title, from = strings.TrimSpace(first), "report"
	case len(res.Commits) == 1:
		_, title, _ = strings.Cut(res.Commits[0], " ")
		from = "commit"
	default:
		from = "commits"
		title = fmt.Sprintf("The work of teammate %s of team %s (%d commits)", r.Member, r.Team, len(res.Commits))
	}
	title = cut(strings.Join(strings.Fields(title), " "), maxTitle)
	var b strings.Builder
	if report != "" {
		b.WriteString(report + "\n\n")
	}
	fmt.Fprintf(&b, "Commits (%d):\n\n", len(res.Commits))
	for i, c := range res.Commits {
		if i == maxListed {
			fmt.Fprintf(&b, "- ... and %d more\n", len(res.Commits)-maxListed)
			break
		}
		b.WriteString("- " + c + "\n")
	}
	fmt.Fprintf(&b, "\nThe work of teammate %s of team %s, from its branch %s.\n", r.Member, r.Team, r.Branch)
	return title, from, b.String()
}

// cut is s in at most n bytes, cut at a character's start.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// push pushes branch to the remote under its own name, with the
// person's git configuration (their pre-push hook runs). git's trace
// names the hook when one stops it; a refusal by the remote is told
// apart, since a remote on this machine's disk runs its own hooks under
// the same trace.
func push(ctx context.Context, dir, remote, branch string) error {
	spec := "refs/heads/" + branch + ":refs/heads/" + branch
	g := gitCmd{dir: dir, args: []string{"push", "--porcelain", remote, spec}}
	f, err := os.CreateTemp("", "paneteam-pr-trace-")
	if err == nil {
		f.Close()
		defer os.Remove(f.Name())
		g.env = []string{"GIT_TRACE=" + f.Name()}
	}
	out, err := g.run(ctx)
	if err == nil {
		return nil
	}
	var ge *GitError
	if !errors.As(err, &ge) {
		return err
	}
	if reason, ok := rejected(out + "\n" + ge.Stderr); ok {
		return &PushRejectedError{Remote: remote, Branch: branch, Reason: reason, Output: strings.TrimSpace(ge.Stderr)}
	}
	if f != nil {
		trace, _ := os.ReadFile(f.Name())
		if hook := lastHook(string(trace)); hook == "pre-push" {
			return &PushHookError{Hook: hook, Output: ge.Stderr}
		}
	}
	return fmt.Errorf("push %s to %s: %w", branch, remote, err)
}

// rejected finds the reason of a ref the remote refused in `git push
// --porcelain`'s output ("!\tSRC:DST\t[rejected] (fetch first)") or in
// its human form on stderr.
func rejected(out string) (string, bool) {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		for _, mark := range []string{"[rejected]", "[remote rejected]"} {
			if _, after, ok := strings.Cut(l, mark); ok && strings.HasPrefix(l, "!") {
				reason := strings.Trim(strings.TrimSpace(after), "()")
				if mark == "[remote rejected]" {
					reason = "refused by the remote: " + reason
				}
				return reason, true
			}
		}
	}
	return "", false
}

// ghArgs is the `gh pr create` call for res; repo is HOST/OWNER/REPO
// when the remote's URL names one (else gh finds the repository from
// the lead's remotes). Every text is an argument of its own (the title
// joined to its flag, so a title starting with a dash is still one);
// the body comes on stdin.
func ghArgs(res *PRResult, repo string) []string {
	args := []string{"gh", "pr", "create", "--head", res.Branch}
	if res.Base != "" {
		args = append(args, "--base", res.Base)
	}
	if repo != "" {
		args = append(args, "--repo", repo)
	}
	return append(args, "--title="+res.Title, "--body-file", "-")
}

// openPR runs gh. Its URL is the last line it printed that is one.
func openPR(ctx context.Context, req PRRequest, res *PRResult) error {
	ctx, cancel := context.WithTimeout(ctx, GHTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, req.GH, res.GHArgs[1:]...)
	cmd.Dir = req.Lead.Dir
	cmd.Env = append(append([]string(nil), req.Env...), "GH_PROMPT_DISABLED=1")
	cmd.Stdin = strings.NewReader(res.Body)
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	url := lastURL(out.String())
	if err == nil && url != "" {
		res.URL = url
		return nil
	}
	// gh refuses a second request for one branch, naming the first.
	if u := lastURL(errb.String()); err != nil && u != "" && strings.Contains(errb.String(), "already exists") {
		res.URL, res.Existing = u, true
		return nil
	}
	if err == nil {
		err = errors.New("it printed no pull request's URL")
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return &GHError{Remote: res.Remote, Branch: res.Branch, Stderr: tail(errb.String()+out.String(), 10), Err: err}
}

func lastURL(s string) string {
	url := ""
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "https://") || strings.HasPrefix(f, "http://") {
			url = f
		}
	}
	return url
}

// tail is the last n non-empty lines of s.
func tail(s string, n int) string {
	ls := lines(strings.TrimSpace(s))
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
