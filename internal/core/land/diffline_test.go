package land

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

func TestDiffLinesPlacesEachLineOnTheNewSide(t *testing.T) {
	patch := `diff --git a/a.txt b/a.txt
index 1..2 100644
--- a/a.txt
+++ b/a.txt
@@ -1,4 +1,5 @@
 one
-two
+TWO
+two and a half
 three

@@ -10 +11,2 @@ func f() {
+--- not a header
 ten
\ No newline at end of file
diff --git "a/sp\303\251cial" "b/sp\303\251cial"
new file mode 100644
--- /dev/null
+++ "b/sp\303\251cial"
@@ -0,0 +1 @@
++++ b/looks like a header
diff --git a/gone b/gone
deleted file mode 100644
--- a/gone
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/foo bar b/foo bar
index 1..2 100644
--- a/foo bar	
+++ b/foo bar	
@@ -1 +1 @@
-old
+new
`
	type want struct {
		kind LineKind
		file string
		line int
	}
	wants := []want{
		{Header, "", 0}, {Header, "", 0}, {Header, "", 0}, {Header, "a.txt", 0},
		{Hunk, "", 0},
		{Context, "a.txt", 1}, {Removed, "a.txt", 0}, {Added, "a.txt", 2}, {Added, "a.txt", 3}, {Context, "a.txt", 4},
		{Context, "a.txt", 5}, // a blank unchanged line under diff.suppressBlankEmpty
		{Hunk, "", 0}, {Added, "a.txt", 11}, {Context, "a.txt", 12}, {NoNewline, "", 0},
		{Header, "", 0}, {Header, "", 0}, {Header, "", 0}, {Header, "spécial", 0},
		{Hunk, "", 0}, {Added, "spécial", 1},
		{Header, "", 0}, {Header, "", 0}, {Header, "", 0}, {Header, "", 0},
		{Hunk, "", 0}, {Removed, "", 0},
		// git ends a ---/+++ name holding a space with a tab.
		{Header, "", 0}, {Header, "", 0}, {Header, "", 0}, {Header, "foo bar", 0},
		{Hunk, "", 0}, {Removed, "foo bar", 0}, {Added, "foo bar", 1},
	}
	got := DiffLines(patch)
	if len(got) != len(wants) {
		t.Fatalf("%d lines, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		if g.Kind != w.kind || g.Line != w.line || (w.kind != Header && g.File != w.file) {
			t.Errorf("line %d %q: kind %d %s:%d, want kind %d %s:%d", i+1, g.Text, g.Kind, g.File, g.Line, w.kind, w.file, w.line)
		}
	}
	if DiffLines("") != nil {
		t.Error("an empty diff has lines")
	}
}

// The person's diff.noprefix and colour settings do not reach what
// DiffLines reads.
func TestParseDiffIgnoresThePersonsPrefixAndColour(t *testing.T) {
	repo := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = P\n\temail = p@example.com\n[diff]\n\tnoprefix = true\n[color]\n\tdiff = always\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	gitRun(t, repo, "init", "-q", "-b", "main")
	// Under diff.noprefix, b/f.txt would read as f.txt.
	os.Mkdir(filepath.Join(repo, "b"), 0o755)
	os.WriteFile(filepath.Join(repo, "b", "f.txt"), []byte("1\n2\n3\n"), 0o644)
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-q", "-m", "one")
	base := gitRun(t, repo, "rev-parse", "HEAD")
	gitRun(t, repo, "switch", "-q", "-c", "paneteam/t/alice")
	os.WriteFile(filepath.Join(repo, "b", "f.txt"), []byte("1\n2\nthree\n"), 0o644)
	gitRun(t, repo, "commit", "-q", "-am", "three")
	d, err := TeammateDiff(context.Background(), worktree.Record{Repo: repo, Path: repo, Branch: "paneteam/t/alice", Base: base, Member: "alice"}, DiffOptions{Parse: true})
	if err != nil {
		t.Fatal(err)
	}
	var added []DiffLine
	for _, l := range DiffLines(d.Committed) {
		if l.Kind == Added {
			added = append(added, l)
		}
	}
	if len(added) != 1 || added[0].File != "b/f.txt" || added[0].Line != 3 || added[0].Text != "+three" {
		t.Errorf("added lines %+v in:\n%q", added, d.Committed)
	}
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(context.Background(), dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMovedFollowsALineThroughTheHunks(t *testing.T) {
	// Old a.txt: 1..10. Line 2 replaced, a line added after 5, line 8 removed.
	patch := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n" +
		"@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n" +
		"@@ -5,5 +5,5 @@\n 5\n+5.5\n 6\n 7\n-8\n 9\n"
	lines := DiffLines(patch)
	for _, c := range []struct {
		old, now int
		ok       bool
	}{{1, 1, true}, {2, 0, false}, {3, 3, true}, {4, 4, true}, {5, 5, true}, {6, 7, true}, {7, 8, true}, {8, 0, false}, {9, 9, true}, {10, 10, true}} {
		if now, ok := Moved(lines, "a.txt", c.old); now != c.now || ok != c.ok {
			t.Errorf("line %d: %d %v, want %d %v", c.old, now, ok, c.now, c.ok)
		}
	}
	if now, ok := Moved(lines, "b.txt", 4); now != 4 || !ok {
		t.Errorf("a file the diff does not touch moved: %d %v", now, ok)
	}
}
