package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// A teammate that ended replaced its worktree with a link to one of the
// person's own linked worktrees (an ignored .env in it): 'worktrees
// --remove', with --force too, refuses and says why, the listing says
// it, and the person's worktree keeps its file.
func TestWorktreesRemoveRefusesAPlantedLink(t *testing.T) {
	ctx := context.Background()
	root, vars := ptRootVars(t)
	state := t.TempDir()
	vars["PANETEAM_STATE_DIR"] = state
	vars["TMUX_TMPDIR"] = t.TempDir()
	repo := testutil.GitRepo(t)
	wt, err := worktree.Give(ctx, worktree.OpenRecords(state), repo, root, "crew", "alice", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(t.TempDir(), "feature")
	if out, err := exec.Command("git", "-C", repo, "worktree", "add", "-q", "-b", "feature", own).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	secret := filepath.Join(own, ".env")
	os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), []byte(".env\n/.paneteam/\n"), 0o644)
	os.WriteFile(secret, []byte("SECRET=1\n"), 0o600)
	os.RemoveAll(wt.Path)
	if err := os.Symlink(own, wt.Path); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"worktrees", "--remove", "crew/alice"}, {"worktrees", "--remove", "crew/alice", "--force"}} {
		_, errs, code := ptRun(t, vars, "", args...)
		if code != 1 || !strings.Contains(errs, wt.Path) || !strings.Contains(errs, "symbolic link") {
			t.Errorf("%s: exit %d %q, want a refusal naming the link", strings.Join(args, " "), code, errs)
		}
		if _, err := os.Stat(secret); err != nil {
			t.Fatalf("%s removed the person's own worktree through the link: %v", strings.Join(args, " "), err)
		}
	}
	out, _, _ := ptRun(t, vars, "", "worktrees")
	if !strings.Contains(out, "refused: kept worktree "+wt.Path) {
		t.Errorf("worktrees does not say why it will not remove alice's:\n%s", out)
	}
}
