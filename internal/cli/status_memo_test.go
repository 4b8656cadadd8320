package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// status keeps what it counted of the inboxes in paneteam's state folder,
// private to the person (a 0600 file in a 0700 folder), and says the same
// with it as without; a link planted in place of that folder is neither
// followed nor reported.
func TestStatusKeepsInboxCountsPrivatelyInTheStateFolder(t *testing.T) {
	_, vars, tm := msgTeam(t)
	ptRun(t, vars, "", "send", "--team", "t", "--to", "alice", "--from", "bob", "hello")
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(tm.InboxPath("alice"), hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	vars["PANETEAM_STATE_DIR"] = state
	first, errs, code := ptRun(t, vars, "", "status", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	dir := filepath.Join(state, "inbox-counts")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("memo files %v, want one for the team", files)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("memo folder: %v %v, want 0700", st, err)
	}
	if st, err := os.Stat(files[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("memo file: %v %v, want 0600", st, err)
	}
	if second, _, _ := ptRun(t, vars, "", "status", "--json"); second != first {
		t.Fatalf("status from the memo:\n%s\nwithout:\n%s", second, first)
	}

	elsewhere := t.TempDir()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	out, errs, code := ptRun(t, vars, "", "status", "--json")
	if code != 0 || out != first || errs != "" {
		t.Fatalf("status with a link for the memo folder: %d %q\n%s", code, errs, out)
	}
	if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
		t.Fatalf("the memo was written through a link: %v", left)
	}
}

// Deleting a team deletes what status kept of its inboxes.
func TestCleanupForgetsTheTeamsInboxCounts(t *testing.T) {
	_, vars, tm := msgTeam(t)
	ptRun(t, vars, "", "send", "--team", "t", "--to", "alice", "--from", "bob", "hello")
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(tm.InboxPath("alice"), hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	vars["PANETEAM_STATE_DIR"] = state
	if _, errs, code := ptRun(t, vars, "", "status", "--json"); code != 0 {
		t.Fatal(errs)
	}
	memos := filepath.Join(state, "inbox-counts", "*.json")
	if files, _ := filepath.Glob(memos); len(files) != 1 {
		t.Fatalf("memo files %v, want one for the team", files)
	}
	if _, errs, code := ptRun(t, vars, "", "cleanup", "--team", "t", "--force"); code != 0 {
		t.Fatalf("cleanup: %d %s", code, errs)
	}
	if files, _ := filepath.Glob(memos); len(files) != 0 {
		t.Errorf("memo files %v left after the team was deleted", files)
	}
}
