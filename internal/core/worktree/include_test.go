package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A teammate commits, on its branch, a link where a folder named in
// .worktreeinclude is; the next worktree made from that branch must not
// copy the lead's ignored files through it.
func TestCreateCopiesNoIncludedFileThroughALinkOnTheBranch(t *testing.T) {
	repo := newRepo(t)
	write(t, repo, "conf/.env", "SECRET=1\n")
	write(t, repo, IncludeFile, "conf/\n")
	ctx := context.Background()
	wt, err := Create(ctx, repo, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	// The teammate replaces conf/ by a link to a folder of its choosing,
	// commits it, and its worktree goes while its branch stays.
	away := t.TempDir()
	if err := os.RemoveAll(filepath.Join(wt.Path, "conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(away, filepath.Join(wt.Path, "conf")); err != nil {
		t.Fatal(err)
	}
	run(t, wt.Path, "add", "conf")
	run(t, wt.Path, "commit", "-q", "-m", "conf is a link")
	run(t, repo, "worktree", "remove", "--force", wt.Path)

	again, err := Create(ctx, repo, "t", "a")
	if b, rerr := os.ReadFile(filepath.Join(away, ".env")); rerr == nil {
		t.Fatalf("the lead's .env was copied through the link into %s: %q", away, b)
	}
	if err == nil || !strings.Contains(err.Error(), filepath.Join(again.Path, "conf")) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Create = %v, want it to say %s is a symbolic link", err, filepath.Join(again.Path, "conf"))
	}
}

// A link planted at the common git folder's info/ or info/exclude must
// not have paneteam append its line to the file it names.
func TestCreateAppendsNoExcludeLineThroughALink(t *testing.T) {
	for _, at := range []string{"info", "info/exclude"} {
		t.Run(at, func(t *testing.T) {
			repo := newRepo(t)
			outside := filepath.Join(t.TempDir(), "rc")
			if err := os.WriteFile(outside, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := outside
			if at == "info" {
				target = filepath.Dir(outside)
				if err := os.Rename(outside, filepath.Join(target, "exclude")); err != nil {
					t.Fatal(err)
				}
				outside = filepath.Join(target, "exclude")
			}
			planted := filepath.Join(repo, ".git", at)
			if err := os.RemoveAll(planted); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, planted); err != nil {
				t.Fatal(err)
			}
			_, err := Create(context.Background(), repo, "t", "a")
			if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
				t.Fatalf("the link's target was written: %q", b)
			}
			if err == nil || !strings.Contains(err.Error(), planted) || !strings.Contains(err.Error(), "symbolic link") {
				t.Fatalf("Create = %v, want it to say %s is a symbolic link", err, planted)
			}
		})
	}
}

// On the lead's side, a folder swapped for a link after git listed the
// files is not followed out of the lead's tree either.
func TestCopyOneFollowsNoLinkOnTheLeadsSide(t *testing.T) {
	repo, dst, away := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, away, ".env", "NOT THE LEAD'S\n")
	if err := os.Symlink(away, filepath.Join(repo, "conf")); err != nil {
		t.Fatal(err)
	}
	ok, err := copyOne(repo, dst, filepath.Join("conf", ".env"))
	if ok || err == nil || !strings.Contains(err.Error(), filepath.Join(repo, "conf")) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("copyOne = %v, %v; want a refusal naming %s", ok, err, filepath.Join(repo, "conf"))
	}
	if exists(filepath.Join(dst, "conf", ".env")) {
		t.Fatal("a file from outside the lead's tree was copied")
	}
}
