package usage

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostileSize is the sparse transcript a teammate can write: a gigabyte
// with no line end, 4 KB on disk.
const hostileSize = 1 << 30

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A sparse gigabyte without a line end after a real reply: every reader
// (the status line's Batch, status's Store, a budget watcher's and
// monitor's Tracker) reads it in bounded memory, counts the reply, says
// the rest is unreadable, moves past it and does not pay again.
func TestSparseGigabyteWithoutLineEndIsBoundedAndPaidOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	path := filepath.Join(cfg, "projects", "-w", "s.jsonl")
	write(t, path, claudeReply("m1", "claude-x", 1, 2, 3, 4, "text"), false)
	if err := os.Truncate(path, hostileSize); err != nil {
		t.Fatal(err)
	}
	src := ClaudeSession(cfg, "/w", "s")
	store := Open(filepath.Join(dir, "state"))
	tr := &Tracker{Source: src}
	readers := map[string]func() (Spend, error){
		"store":   func() (Spend, error) { return store.Read(src) },
		"tracker": tr.Read,
		"batch": func() (Spend, error) {
			b := &Batch{Store: Open(filepath.Join(dir, "state2")), Key: "team"}
			defer b.Close()
			return b.Read(src)
		},
	}
	for name, read := range readers {
		for round := range 2 {
			var s Spend
			var err error
			start := time.Now()
			n := allocated(func() { s, err = read() })
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s, read %d: %v", name, round, err)
			}
			if n > 64<<20 {
				t.Errorf("%s, read %d: allocated %d MB for a transcript of one reply", name, round, n>>20)
			}
			if s.Tokens() != (Tokens{1, 2, 3, 4}) || s.Skipped != 1 {
				t.Errorf("%s, read %d: %+v, %d unreadable; want the reply and 1 unreadable line", name, round, s.Tokens(), s.Skipped)
			}
			if round == 1 && took > 500*time.Millisecond {
				t.Errorf("%s: the second read took %v: it paid again", name, took)
			}
		}
	}
	// A reply written after the hostile line, once it ends, is counted.
	write(t, path, "\n"+claudeReply("m2", "claude-x", 10, 20, 30, 40, "text"), true)
	for name, read := range readers {
		if s, err := read(); err != nil || s.Tokens() != (Tokens{11, 22, 33, 44}) || s.Skipped != 1 {
			t.Errorf("%s after the line ended: %+v, %d unreadable, %v; want both replies", name, s.Tokens(), s.Skipped, err)
		}
	}
}

// lowered runs a test with MaxLine and ReadBudget lowered, so that files
// written whole (not sparse) stay small.
func lowered(t *testing.T, line, budget int64) {
	oldLine, oldBudget := lineCap, readBudget
	lineCap, readBudget = line, budget
	t.Cleanup(func() { lineCap, readBudget = oldLine, oldBudget })
}

// A line longer than MaxLine, written out, is moved past and counted
// unreadable; one read reads about ReadBudget and the next goes on.
func TestOverLongLineIsSkippedAndEachReadIsBudgeted(t *testing.T) {
	lowered(t, 1<<20, 4<<20)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	path := filepath.Join(cfg, "projects", "-w", "s.jsonl")
	filler := `{"type":"user","message":{"content":"` + strings.Repeat("y", 1000) + `"}}` + "\n"
	write(t, path, claudeReply("m1", "claude-x", 1, 2, 3, 4, "text")+
		`{"type":"user","message":{"content":"`+strings.Repeat("x", 3<<20)+"\"}}\n"+
		strings.Repeat(filler, 10<<10)+ // 10 MB of readable lines
		claudeReply("m2", "claude-x", 10, 20, 30, 40, "text"), false)
	src := ClaudeSession(cfg, "/w", "s")
	store := Open(filepath.Join(dir, "state"))
	reads := 0
	for {
		reads++
		s, err := store.Read(src)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Behind {
			if s.Tokens() != (Tokens{11, 22, 33, 44}) || s.Skipped != 1 {
				t.Fatalf("%+v, %d unreadable: want both replies and the long line unreadable", s.Tokens(), s.Skipped)
			}
			break
		}
		if s.Tokens() != (Tokens{1, 2, 3, 4}) {
			t.Fatalf("read %d, behind: %+v, want the first reply only", reads, s.Tokens())
		}
		if reads > 10 {
			t.Fatal("the reads do not catch up")
		}
	}
	if reads < 3 || reads > 5 {
		t.Errorf("%d reads for 13 MB at 4 MB each, want 3 to 5", reads)
	}
}

// Counts no model reports (negative, or past MaxReplyTokens so that sums
// wrap) are refused where they are read, and counted unreadable: they
// never reach a cost, a team's total or a budget.
func TestHostileTokenCountsAreRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	path := filepath.Join(cfg, "projects", "-w", "s.jsonl")
	write(t, path, claudeReply("m1", "claude-x", 100, 200, 300, 400, "text")+
		claudeReply("m2", "claude-x", -1000000, 0, 0, 0, "text")+
		claudeReply("m3", "claude-x", 0, math.MaxInt64, 0, 0, "text")+
		claudeReply("m4", "claude-x", 0, math.MaxInt64, 0, 0, "text"), false)
	for name, s := range map[string]Spend{"store": must(Open(filepath.Join(dir, "state")).Read(ClaudeSession(cfg, "/w", "s"))),
		"tracker": must((&Tracker{Source: ClaudeSession(cfg, "/w", "s")}).Read())} {
		if s.Tokens() != (Tokens{100, 200, 300, 400}) || s.Skipped != 3 {
			t.Errorf("%s: %+v, %d unreadable; want the honest reply only and 3 unreadable", name, s.Tokens(), s.Skipped)
		}
	}
	// Codex's cumulative totals may not go down (a negative growth).
	rollout := filepath.Join(dir, "codex", "rollout.jsonl")
	write(t, rollout, codexTotals(1000, 100, 50)+codexTotals(10, 0, 0)+codexTotals(2000, 100, 60), false)
	s := must(Open(filepath.Join(dir, "state")).Read(Source{Format: Codex, Files: []string{rollout}}))
	if tk := s.Tokens(); tk != (Tokens{Input: 1900, Output: 60, CacheRead: 100}) || s.Skipped != 1 {
		t.Errorf("codex: %+v, %d unreadable; want the last total and the shrinking one unreadable", tk, s.Skipped)
	}
	// Sums saturate rather than wrap.
	big := Tokens{Input: math.MaxInt64 - 1}
	if got := big.Add(Tokens{Input: 10}); got.Input != math.MaxInt64 {
		t.Errorf("a sum wrapped: %d", got.Input)
	}
}

func must(s Spend, err error) Spend {
	if err != nil {
		panic(err)
	}
	return s
}
