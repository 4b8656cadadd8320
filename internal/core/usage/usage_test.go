package usage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeReply is a reply of Claude Code's transcript as it writes one:
// a line per content block, each repeating the reply's usage.
func claudeReply(id, model string, in, out, cr, cw int64, blocks ...string) string {
	var b strings.Builder
	for _, kind := range blocks {
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"s","message":{"id":%q,"model":%q,"role":"assistant","content":[{"type":%q}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}}}`+"\n",
			id, model, kind, in, cw, cr, out)
	}
	return b.String()
}

func write(t *testing.T, path, s string, appendTo bool) {
	t.Helper()
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_APPEND
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestClaudeCountsEachReplyOnceByMessageID(t *testing.T) {
	dir := t.TempDir()
	cfg, cwd, sid := filepath.Join(dir, "cfg"), "/work/a b", "1111-2222"
	path := filepath.Join(cfg, "projects", "-work-a-b", sid+".jsonl")
	write(t, path, `{"type":"user","message":{"role":"user","content":"hi"}}`+"\n"+
		claudeReply("msg_1", "claude-sonnet-4-5", 12000, 3000, 40000, 1000, "text", "tool_use", "tool_use")+
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result"}]}}`+"\n"+
		claudeReply("msg_2", "claude-sonnet-4-5", 10, 20, 30, 40, "text"), false)
	s, err := Open(filepath.Join(dir, "state")).Read(ClaudeSession(cfg, cwd, sid))
	if err != nil {
		t.Fatal(err)
	}
	want := Tokens{Input: 12010, Output: 3020, CacheRead: 40030, CacheWrite: 1040}
	if got := s.Tokens(); got != want || s.Replies() != 2 {
		t.Fatalf("got %+v in %d replies, want %+v in 2 (each reply once, whatever its blocks)", got, s.Replies(), want)
	}
}

func TestIncrementalReadsOnlyWhatWasAdded(t *testing.T) {
	dir := t.TempDir()
	cfg, sid := filepath.Join(dir, "cfg"), "s1"
	path := filepath.Join(cfg, "projects", "-w", sid+".jsonl")
	store := Open(filepath.Join(dir, "state"))
	src := ClaudeSession(cfg, "/w", sid)
	write(t, path, claudeReply("m1", "claude-x", 1, 1, 0, 0, "text"), false)
	if _, err := store.Read(src); err != nil {
		t.Fatal(err)
	}
	// Spoil what was read already, keeping its length: a second read
	// that started from the top would now skip it as malformed and lose
	// its tokens.
	b, _ := os.ReadFile(path)
	spoiled := strings.Repeat("x", len(b)-1) + "\n"
	write(t, path, spoiled, false)
	// The last reply's second block, then a line still being written.
	write(t, path, claudeReply("m1", "claude-x", 1, 1, 0, 0, "tool_use")+claudeReply("m2", "claude-x", 5, 5, 0, 0, "text")+`{"type":"assist`, true)
	s, err := store.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Tokens(); got != (Tokens{Input: 6, Output: 6}) || s.Skipped != 0 {
		t.Fatalf("second read: %+v, %d skipped; want 6 in and out, none skipped (only the new bytes read, m1 once)", got, s.Skipped)
	}
	st, _ := os.Stat(path)
	c := store.load(path, Claude, true)
	if c.Offset != st.Size()-int64(len(`{"type":"assist`)) {
		t.Fatalf("cursor at %d of %d: a line without its newline is read when finished", c.Offset, st.Size())
	}
	// The file replaced by a shorter one is read again from the start.
	os.Remove(path)
	write(t, path, claudeReply("m9", "claude-x", 2, 2, 0, 0, "text"), false)
	s, _ = store.Read(src)
	if got := s.Tokens(); got != (Tokens{Input: 2, Output: 2}) {
		t.Fatalf("replaced transcript: %+v, want 2 and 2", got)
	}
}

func TestMalformedLineCostsOnlyItself(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	write(t, filepath.Join(cfg, "projects", "-w", "s.jsonl"),
		claudeReply("m1", "claude-x", 1, 2, 3, 4, "text")+"{not json\n"+
			`{"type":"assistant","message":{"id":"m2","model":"claude-x","usage":{"input_tokens":"many"}}}`+"\n"+
			claudeReply("m3", "claude-x", 10, 20, 30, 40, "text"), false)
	s, err := Open(filepath.Join(dir, "state")).Read(ClaudeSession(cfg, "/w", "s"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Tokens(); got != (Tokens{11, 22, 33, 44}) || s.Skipped != 2 {
		t.Fatalf("got %+v, %d skipped; want 11/22/33/44 with 2 lines skipped", got, s.Skipped)
	}
}

func TestLinkedTranscriptRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	elsewhere := filepath.Join(dir, "elsewhere.jsonl")
	write(t, elsewhere, claudeReply("m1", "claude-x", 1, 2, 3, 4, "text"), false)
	os.MkdirAll(filepath.Join(cfg, "projects", "-w"), 0o700)
	if err := os.Symlink(elsewhere, filepath.Join(cfg, "projects", "-w", "s.jsonl")); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(dir, "state")).Read(ClaudeSession(cfg, "/w", "s"))
	if err == nil || !strings.Contains(err.Error(), "link") {
		t.Fatalf("a transcript that is a link: %v, want it refused as a link", err)
	}
	// A linked folder on the way to a CLI's records is not followed
	// either.
	run := filepath.Join(dir, "run")
	os.MkdirAll(run, 0o700)
	real := filepath.Join(dir, "real")
	write(t, filepath.Join(real, "2026", "11", "27", "rollout-a.jsonl"), codexTotals(5, 0, 5), false)
	os.Symlink(real, filepath.Join(run, "codex"))
	os.MkdirAll(filepath.Join(real, "sessions"), 0o700)
	os.Rename(filepath.Join(real, "2026"), filepath.Join(real, "sessions", "2026"))
	_, err = Open(filepath.Join(dir, "state")).Read(Source{Format: Codex, Base: run, Patterns: cliPatternsOf("codex")})
	if err == nil {
		t.Fatal("a rollout below a linked folder was read")
	}
}

func codexTotals(in, cached, out int64) string {
	return fmt.Sprintf(`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d},"last_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":1,"total_tokens":1}}}}`+"\n",
		in, cached, out, in+out, in)
}

func TestCodexTakesTheLastCumulativeTotal(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	path := filepath.Join(run, "codex", "sessions", "2026", "11", "27", "rollout-1.jsonl")
	write(t, path, `{"type":"session_meta","payload":{"id":"x"}}`+"\n"+
		`{"type":"turn_context","payload":{"model":"gpt-5.4"}}`+"\n"+
		codexTotals(1000, 200, 50)+
		`{"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{}}}`+"\n"+
		codexTotals(1000, 200, 50)+ // the same totals again
		codexTotals(3000, 1200, 150), false)
	store := Open(filepath.Join(dir, "state"))
	rec := Source{Format: Codex, Base: run, Patterns: cliPatternsOf("codex")}
	s, err := store.Read(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := Tokens{Input: 1800, CacheRead: 1200, Output: 150}
	if got := s.Models["gpt-5.4"].Tokens; got != want || s.Replies() != 2 {
		t.Fatalf("got %+v in %d replies, want the last total %+v (input less its cached part) in 2", got, s.Replies(), want)
	}
	// Read on from the cursor kept on disk: still the last total.
	write(t, path, codexTotals(4000, 1200, 200), true)
	s, _ = store.Read(rec)
	if got := s.Tokens(); got != (Tokens{Input: 2800, CacheRead: 1200, Output: 200}) {
		t.Fatalf("after one more total: %+v, want 2800/200/1200", got)
	}
}

func TestGeminiAndOpenCodeCountTheLastRecordOfAReply(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	write(t, filepath.Join(run, "gemini", ".gemini", "tmp", "proj", "chats", "session-1.jsonl"),
		`{"sessionId":"x","projectHash":"p"}`+"\n"+
			`{"id":"g1","type":"user","content":"hi"}`+"\n"+
			`{"id":"g2","type":"gemini","model":"gemini-2.5-pro","content":""}`+"\n"+
			`{"id":"g2","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":100,"output":10,"cached":40,"thoughts":5,"tool":2,"total":117}}`+"\n"+
			`{"id":"g2","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":100,"output":10,"cached":40,"thoughts":5,"tool":2,"total":117},"toolCalls":[]}`+"\n", false)
	s, err := Open(filepath.Join(dir, "state")).Read(Source{Format: Gemini, Base: run, Patterns: cliPatternsOf("gemini")})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Tokens(); got != (Tokens{Input: 62, Output: 15, CacheRead: 40}) || s.Replies() != 1 {
		t.Fatalf("gemini: %+v in %d replies, want 62 in (100-40 cached + 2 tool), 15 out, 40 cached, once", got, s.Replies())
	}
	write(t, filepath.Join(run, OpenCodeFile),
		`{"id":"o1","model":"fake-model","tokens":{"input":7,"output":3,"reasoning":1,"cache":{"read":2,"write":1}}}`+"\n"+
			`{"id":"o1","model":"fake-model","tokens":{"input":7,"output":4,"reasoning":1,"cache":{"read":2,"write":1}}}`+"\n", false)
	s, err = Open(filepath.Join(dir, "state")).Read(Source{Format: OpenCode, Base: run, Patterns: cliPatternsOf("opencode")})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Tokens(); got != (Tokens{Input: 7, Output: 5, CacheRead: 2, CacheWrite: 1}) {
		t.Fatalf("opencode: %+v, want its last record of o1", got)
	}
}

func TestUnknownSaysWhy(t *testing.T) {
	for _, c := range []struct {
		src  Source
		want string
	}{
		{Source{Unknown: "runs on h"}, "runs on h"},
		{ClaudeSession(t.TempDir(), "/w", "none"), "nothing recorded yet"},
	} {
		_, err := Open(t.TempDir()).Read(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// A batch (status's way) and a tracker (a budget watcher's) read the same
// sums as the store, and only what was added since.
func TestBatchAndTrackerFollowAGrowingTranscript(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	path := filepath.Join(cfg, "projects", "-w", "s.jsonl")
	write(t, path, claudeReply("m1", "claude-x", 1, 2, 3, 4, "text", "tool_use"), false)
	src := ClaudeSession(cfg, "/w", "s")
	store := Open(filepath.Join(dir, "state"))
	tr := &Tracker{Source: src}
	for round, want := range []Tokens{{1, 2, 3, 4}, {11, 22, 33, 44}} {
		if round == 1 {
			write(t, path, claudeReply("m1", "claude-x", 1, 2, 3, 4, "tool_use")+claudeReply("m2", "claude-x", 10, 20, 30, 40, "text"), true)
		}
		b := &Batch{Store: store, Key: "team"}
		got, err := b.Read(src)
		if err != nil || got.Tokens() != want {
			t.Fatalf("round %d, batch: %+v %v, want %+v", round, got.Tokens(), err, want)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		again, _ := (&Batch{Store: store, Key: "team"}).Read(src)
		if again.Tokens() != want {
			t.Fatalf("round %d, a new batch: %+v, want %+v", round, again.Tokens(), want)
		}
		if got, _ := tr.Read(); got.Tokens() != want {
			t.Fatalf("round %d, tracker: %+v, want %+v", round, got.Tokens(), want)
		}
	}
}

func cliPatternsOf(cli string) []string {
	_, p, _ := cliPatterns(cli)
	return p
}
