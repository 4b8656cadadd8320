package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/team"
)

// badEntryText is an inbox entry another tool wrote with a number where
// a name goes, in Claude Code's layout.
const badEntryText = "  {\n    \"from\": 42,\n    \"text\": \"from a careless tool\",\n    \"timestamp\": \"2026-03-01T10:00:00.000Z\",\n    \"read\": false\n  }"

// plant puts text into the file at path right after the first after.
func plant(t *testing.T, path, after, text string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), after) {
		t.Fatalf("%s holds no %q:\n%s", path, after, b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), after, after+text, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func stillHolds(t *testing.T, path, text string) {
	t.Helper()
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), text) {
		t.Fatalf("%s no longer holds, byte for byte:\n%s\nit holds:\n%s", path, text, b)
	}
}

// One entry of the wrong shape in an inbox costs that entry: inbox lists
// the others, send appends and leaves it where it is, marking read and
// archiving work for the others, nothing is moved aside.
func TestInboxWithOneBadEntry(t *testing.T) {
	_, vars, tm := msgTeam(t)
	for _, text := range []string{"first", "second"} {
		if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "bob", "--from", "alice", text); code != 0 {
			t.Fatalf("send: %d %s", code, errs)
		}
	}
	path := tm.InboxPath("bob")
	plant(t, path, "[\n", badEntryText+",\n")

	out, errs, code := ptRun(t, vars, "", "inbox", "--team", "t", "--name", "bob")
	if code != 0 || !strings.Contains(out, "first") || !strings.Contains(out, "second") {
		t.Fatalf("inbox: exit %d\n%s\n%s", code, out, errs)
	}
	// Said once, naming the file and the entry.
	if strings.Count(errs, "warning:") != 1 || !strings.Contains(errs, path+": entry 1 is not a message") {
		t.Errorf("inbox's warnings:\n%s\nwant one naming entry 1 of %s", errs, path)
	}
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "bob", "--from", "alice", "third"); code != 0 {
		t.Fatalf("send refused because of another entry: %d %s", code, errs)
	}
	stillHolds(t, path, "[\n"+badEntryText+",\n")
	if moved, _ := os.ReadDir(tm.InboxDir()); strings.Contains(names(moved), "corrupt") {
		t.Fatalf("the inbox was moved aside: %s", names(moved))
	}
	if _, errs, code := ptRun(t, vars, "", "inbox", "--team", "t", "--name", "bob", "--unread", "--mark-read"); code != 0 {
		t.Fatalf("mark read: %d %s", code, errs)
	}
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "bob", "--from", "alice", "fourth"); code != 0 {
		t.Fatalf("send: %d %s", code, errs)
	}
	stillHolds(t, path, badEntryText)
	out, _, _ = ptRun(t, vars, "", "inbox", "--team", "t", "--name", "bob", "--archived")
	for _, want := range []string{"first", "second", "third"} {
		if !strings.Contains(out, want) {
			t.Errorf("archive lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = ptRun(t, vars, "", "inbox", "--team", "t", "--name", "bob")
	if !strings.Contains(out, "fourth") || strings.Contains(out, "first") {
		t.Errorf("inbox after marking read:\n%s", out)
	}
}

func names(es []os.DirEntry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return strings.Join(out, " ")
}

// One member row of the wrong shape in config.json costs that row: status,
// send to a good member and spawn work, and the row is kept byte for byte.
func TestTeamWithOneBadMemberRow(t *testing.T) {
	s := ipSetup(t)
	tm, _, err := team.Open(s.root, "crew")
	if err != nil {
		t.Fatal(err)
	}
	ptAddMember(t, s.root, "crew", "alice")
	row := "    {\n      \"agentId\": \"mallory@crew\",\n      \"name\": \"mallory\",\n      \"joinedAt\": \"yesterday\"\n    },\n"
	plant(t, tm.ConfigPath(), "\"members\": [\n", row)

	if out := s.mustRun("status", "--team", "crew"); !strings.Contains(out, "alice") {
		t.Fatalf("status does not list alice:\n%s", out)
	}
	for _, args := range [][]string{{"status", "--team", "crew"}, {"status"}} {
		if _, errs, code := ptRun(t, map[string]string{"PANETEAM_ROOT": s.root, "HOME": t.TempDir()}, "", args...); code != 0 ||
			strings.Count(errs, "warning:") != 1 || !strings.Contains(errs, "member row 1 is not a member") {
			t.Errorf("%v in a team with a bad member row: exit %d, want one warning, got:\n%s", args, code, errs)
		}
	}
	if _, errs, code := ptRun(t, map[string]string{"PANETEAM_ROOT": s.root, "HOME": t.TempDir()}, "", "task", "list", "--team", "crew"); code != 0 ||
		strings.Count(errs, "warning:") != 1 || !strings.Contains(errs, "member row 1 is not a member") {
		t.Errorf("task list in a team with a bad member row: exit %d, warnings:\n%s", code, errs)
	}
	s.mustRun("send", "--team", "crew", "--to", "alice", "--from", "team-lead", "hello")
	s.mustRun("spawn-pane", "--team", "crew", "--name", "worker", "--backend", "in-process", "--", "sleep", "1000")
	s.mustRun("kill-pane", "--team", "crew", "--name", "worker")
	stillHolds(t, tm.ConfigPath(), "\"members\": [\n"+row)
	if cfg := s.config(); cfg.Member("alice") == nil || len(cfg.SkippedMembers()) != 1 {
		t.Fatalf("members %v, skipped %v", cfg.MemberNames(), cfg.SkippedMembers())
	}
}
