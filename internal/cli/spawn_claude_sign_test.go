package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/encoding/jsjson"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// fakeClaude writes a stand-in for the claude binary: it answers
// --version as Claude Code 2.1.330 and otherwise records its arguments and
// the inbox exactly as it found it when it started, then waits.
func fakeClaude(t *testing.T, dir, inbox string) (bin, argvFile, inboxFile string) {
	bin = filepath.Join(dir, "claude")
	argvFile, inboxFile = filepath.Join(dir, "argv"), filepath.Join(dir, "inbox-at-start")
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = --version ]; then echo '2.1.330 (Claude Code)'; exit 0; fi\n" +
		"cat '" + inbox + "' > '" + inboxFile + ".tmp'; printf '%s\\n' \"$@\" > '" + argvFile + ".tmp'\n" +
		"mv '" + inboxFile + ".tmp' '" + inboxFile + "'; mv '" + argvFile + ".tmp' '" + argvFile + "'\n" +
		"exec sleep 600\n"
	testutil.WriteExecutable(t, bin, []byte(script))
	return bin, argvFile, inboxFile
}

// signedEntries reads an inbox as Claude Code does and reports, per
// entry, its text and whether its lead_sig verifies under flag.
type readEntry struct {
	text, from, timestamp string
	signed, verifies      bool
}

func readSigned(t *testing.T, path, flag string) []readEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsjson.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []readEntry
	for _, e := range v.([]any) {
		o := e.(*jsjson.Object)
		get := func(k string) (string, bool) { x, ok := o.Get(k); s, isS := x.(string); return s, ok && isS }
		var pe provenance.Entry
		pe.MsgID, _ = get("msg_id")
		pe.From, _ = get("from")
		pe.Timestamp, _ = get("timestamp")
		pe.Text, _ = get("text")
		for k, p := range map[string]**string{"summary": &pe.Summary, "color": &pe.Color, "from_plugin": &pe.FromPlugin} {
			if s, ok := get(k); ok {
				*p = &s
			}
		}
		sig, signed := get("lead_sig")
		re := readEntry{text: pe.Text, from: pe.From, timestamp: pe.Timestamp, signed: signed}
		re.verifies = signed && flag != "" && provenance.Verify(flag, pe, sig) == nil
		out = append(out, re)
	}
	return out
}

func argAfter(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestSpawnClaudeSignsAsTheLead: in a team paneteam leads, a Claude Code
// 2.1.330 teammate is started with a fresh --lead-verify-key after its
// inbox was cleared and its prompt written signed (docs/PROTOCOL.md
// §14); what the lead sends it later (a message, a shutdown request) is
// signed too; the same sent from inside a teammate is not; its key lives
// in paneteam's private state folder and goes when it leaves.
func TestSpawnClaudeSignsAsTheLead(t *testing.T) {
	s := spInside(t)
	state := t.TempDir()
	s.vars = append(s.vars, "PANETEAM_STATE_DIR="+state)
	inbox := filepath.Join(s.root, "teams", "crew", "inboxes", "alice.json")
	os.MkdirAll(filepath.Dir(inbox), 0o700)
	stale := `[{"from":"team-lead","text":"left over from an earlier alice","timestamp":"2026-01-01T00:00:00.000Z","read":false}]`
	os.WriteFile(inbox, []byte(stale), 0o600)
	bin, argvFile, inboxFile := fakeClaude(t, t.TempDir(), inbox)

	before := time.Now().UnixMilli()
	s.spawnClaude("alice", bin, "--prompt", "Review the diff")
	args := spWaitLines(t, argvFile, 1)
	flag := argAfter(args, "--lead-verify-key")
	if flag == "" {
		t.Fatalf("no --lead-verify-key in %q", args)
	}
	if mode := argAfter(args, "--permission-mode"); mode != "default" {
		t.Errorf("--permission-mode %q, want default (2.1.330 always gets one)", mode)
	}
	spWaitLines(t, inboxFile, 1)
	first := readSigned(t, inboxFile, flag)
	if len(first) != 1 || first[0].text != "Review the diff" || first[0].from != "team-lead" || !first[0].verifies {
		t.Fatalf("inbox when the teammate started: %+v (want only the signed prompt)", first)
	}
	// The key is stamped first, then the prompt: the teammate accepts
	// nothing stamped more than two minutes before the key.
	stamp, _ := strconv.ParseInt(strings.SplitN(flag, ".", 2)[0], 10, 64)
	ts, _ := time.Parse(time.RFC3339Nano, first[0].timestamp)
	if stamp < before || ts.UnixMilli() < stamp {
		t.Errorf("spawn began %d, key stamped %d, prompt stamped %d: want that order", before, stamp, ts.UnixMilli())
	}

	keys, _ := os.ReadDir(filepath.Join(state, "keys"))
	if len(keys) != 1 {
		t.Fatalf("key files: %v", keys)
	}
	if st, _ := os.Stat(filepath.Join(state, "keys")); st.Mode().Perm() != 0o700 {
		t.Errorf("key folder mode %v", st.Mode().Perm())
	}
	if st, _ := keys[0].Info(); st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", st.Mode().Perm())
	}
	if strings.Contains(filepath.Join(state, "keys"), s.root) {
		t.Error("keys inside the team root")
	}

	s.mustRun("send", "--team", "crew", "--to", "alice", "from the lead")
	// The same, run from inside a teammate (its tool calls see
	// PANETEAM_AGENT), even naming team-lead: never signed.
	inside := append(append([]string(nil), s.vars...), "PANETEAM_AGENT=bob")
	s.runEnv(inside, "send", "--team", "crew", "--to", "alice", "--from", "team-lead", "from inside a teammate")
	// A process acting as the lead that cannot find alice's key (another
	// state folder) refuses at once rather than write what alice would
	// take as forged; shutdown without --force too.
	elsewhere := append(append([]string(nil), s.vars...), "PANETEAM_STATE_DIR="+t.TempDir())
	for _, args := range [][]string{
		{"send", "--team", "crew", "--to", "alice", "unsignable"},
		{"shutdown", "--team", "crew", "alice", "--timeout", "30s"},
	} {
		saved := s.vars
		s.vars = elsewhere
		start := time.Now()
		_, errOut, code := s.run(args...)
		s.vars = saved
		if code == 0 || !strings.Contains(errOut, "signing key is missing") || time.Since(start) > 10*time.Second {
			t.Errorf("paneteam %v with alice's key elsewhere: exit %d after %v: %s", args, code, time.Since(start), errOut)
		}
	}
	s.runIgnoringExit("shutdown", "--team", "crew", "alice", "--timeout", "1s", "--force")

	got := map[string]readEntry{}
	for _, e := range readSigned(t, inbox, flag) {
		if strings.Contains(e.text, "shutdown_request") {
			got["shutdown"] = e
		} else {
			got[e.text] = e
		}
	}
	if e := got["from the lead"]; !e.verifies {
		t.Errorf("the lead's message: %+v", e)
	}
	if _, ok := got["unsignable"]; ok {
		t.Error("a message paneteam could not sign reached alice")
	}
	if e, ok := got["from inside a teammate"]; !ok || e.signed {
		t.Errorf("a teammate's message in the lead's name: %+v (present %v), want unsigned", e, ok)
	}
	if e := got["shutdown"]; !e.verifies {
		t.Errorf("shutdown request: %+v", e)
	}
	if keys, _ := os.ReadDir(filepath.Join(state, "keys")); len(keys) != 0 {
		t.Errorf("key still kept after alice left: %v", keys)
	}
}

func TestSpawnClaudeNoSign(t *testing.T) {
	s := spInside(t)
	state := t.TempDir()
	s.vars = append(s.vars, "PANETEAM_STATE_DIR="+state)
	inbox := filepath.Join(s.root, "teams", "crew", "inboxes", "bob.json")
	bin, argvFile, inboxFile := fakeClaude(t, t.TempDir(), inbox)
	s.spawnClaude("bob", bin, "--prompt", "hello", "--no-sign", "--permission-mode", "acceptEdits")
	args := spWaitLines(t, argvFile, 1)
	if argAfter(args, "--lead-verify-key") != "" {
		t.Errorf("--no-sign still gave a key: %q", args)
	}
	if argAfter(args, "--permission-mode") != "acceptEdits" {
		t.Errorf("argv %q", args)
	}
	spWaitLines(t, inboxFile, 1)
	if es := readSigned(t, inboxFile, ""); len(es) != 1 || es[0].signed {
		t.Errorf("prompt: %+v", es)
	}
	if keys, _ := os.ReadDir(filepath.Join(state, "keys")); len(keys) != 0 {
		t.Errorf("keys made: %v", keys)
	}
}

func (s *spTeam) spawnClaude(name, bin string, extra ...string) {
	s.t.Helper()
	args := append([]string{"spawn-pane", "--team", s.name, "--name", name, "--claude"}, extra...)
	s.mustRun(append(args, "--", bin)...)
}

func (s *spTeam) runEnv(env []string, args ...string) {
	s.t.Helper()
	saved := s.vars
	s.vars = env
	defer func() { s.vars = saved }()
	if _, errOut, code := s.run(args...); code != 0 {
		s.t.Fatalf("paneteam %v: %s", args, errOut)
	}
}

func (s *spTeam) runIgnoringExit(args ...string) {
	s.t.Helper()
	s.run(args...)
}
