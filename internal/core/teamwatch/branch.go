package teamwatch

import (
	"os"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/team"
)

// branches maps each member with a worktree of its own to that worktree's
// record: paneteam's worktree records (teammates Claude's lead started
// under 'paneteam claude --worktree', whose config.json paneteam never
// writes a worktree into, and those spawn-pane --worktree started), and,
// for a row with no record, config.json's worktreePath (a record made
// up of the path and branch alone). A worktree no longer there names no
// branch.
func branches(getenv func(string) string, t team.Team, cfg *team.Config) map[string]worktree.Record {
	out := map[string]worktree.Record{}
	for _, m := range cfg.Members {
		if m.WorktreePath != "" && worktree.Owned(m.WorktreePath, t.Name, m.Name) == nil && exists(m.WorktreePath) {
			out[m.Name] = worktree.Record{Path: m.WorktreePath, Branch: worktree.Branch(t.Name, m.Name), Team: t.Name, Member: m.Name}
		}
	}
	state, err := provenance.StateDir(getenv)
	if err != nil {
		return out
	}
	root, err := filepath.Abs(t.Root)
	if err != nil {
		return out
	}
	list, _ := worktree.OpenRecords(state).List()
	for _, r := range list {
		if r.Team == t.Name && samePath(r.Root, root) && exists(r.Path) {
			out[r.Member] = r
		}
	}
	return out
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func samePath(a, b string) bool {
	if ra, err := filepath.EvalSymlinks(a); err == nil {
		a = ra
	}
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
