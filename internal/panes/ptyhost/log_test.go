package ptyhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogRotatesAndStaysBounded(t *testing.T) {
	p := PathsFor(filepath.Join(t.TempDir(), "teams", "t"), "w")
	l, err := openLog(p, 100)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 29) + "\n" // 30 bytes
	for i := 0; i < 20; i++ {
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	l.Write([]byte("last\n"))
	l.Close()
	cur, _ := os.ReadFile(p.Log)
	prev, _ := os.ReadFile(p.Prev)
	if len(cur) > 100 || len(prev) > 100 {
		t.Fatalf("log files grew past the bound: %d and %d bytes", len(cur), len(prev))
	}
	if !strings.HasSuffix(string(cur), "last\n") || len(prev) == 0 {
		t.Fatalf("rotation lost the newest output: cur=%q prev=%q", cur, prev)
	}
	if fi, _ := os.Stat(p.Log); fi.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v, want 0600 (it holds prompts and messages)", fi.Mode().Perm())
	}
}
