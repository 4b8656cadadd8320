package team

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
)

// badRow is a member row another tool wrote with a date where Claude Code
// writes epoch milliseconds, at the indent config.json's rows have.
const badRow = `    {
      "agentId": "bob@crew",
      "name": "bob",
      "joinedAt": "yesterday",
      "tmuxPaneId": "%9",
      "cwd": "/src",
      "subscriptions": []
    }`

// teamWithBadRow makes a team whose config.json holds the lead, the bad
// row and alice, in that order.
func teamWithBadRow(t *testing.T) Team {
	t.Helper()
	tm, _, err := Create(testutil.Root(t), "crew", CreateOptions{Cwd: "/src", Now: time.UnixMilli(1771439979925)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *Config) error {
		_, err := c.AddMember(Member{Name: "alice", Cwd: "/src", TmuxPaneID: "%3"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(tm.ConfigPath())
	lead := strings.Index(string(b), "\n    },\n") + len("\n    },\n")
	b = []byte(string(b[:lead]) + badRow + ",\n" + string(b[lead:]))
	if err := os.WriteFile(tm.ConfigPath(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestOneBadMemberRowCostsOnlyThatRow(t *testing.T) {
	tm := teamWithBadRow(t)
	_, cfg, err := Open(tm.Root, "crew")
	if err != nil {
		t.Fatalf("one bad member row made the team unusable: %v", err)
	}
	if got := strings.Join(cfg.MemberNames(), ","); got != "team-lead,alice" {
		t.Fatalf("members %q, want the two good rows", got)
	}
	sk := cfg.SkippedMembers()
	if len(sk) != 1 || sk[0].Index != 2 || !strings.Contains(sk[0].Error(), `"joinedAt"`) ||
		!strings.Contains(sk[0].Error(), tm.ConfigPath()) {
		t.Fatalf("the report must name the file, the row (2nd) and its field: %v", sk)
	}

	// A change to the team keeps the row, byte for byte, where it was.
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *Config) error {
		if _, err := c.AddMember(Member{Name: "carol", Cwd: "/src"}); err != nil {
			return err
		}
		c.Member("alice").Model = "opus"
		return nil
	}); err != nil {
		t.Fatalf("update refused because of another row: %v", err)
	}
	b, _ := os.ReadFile(tm.ConfigPath())
	file := string(b)
	at := strings.Index(file, badRow)
	if at < 0 || strings.Index(file, `"name": "team-lead"`) > at || strings.Index(file, `"name": "alice"`) < at ||
		strings.Index(file, `"name": "carol"`) < at || !strings.Contains(file, `"model": "opus"`) {
		t.Fatalf("the row is not kept in its place, or the change is lost:\n%s", file)
	}
	if js := testutil.JSStringify(t, b); string(js) != file {
		t.Fatalf("not in Claude Code's layout; JSON.stringify writes:\n%s", js)
	}
	// Removing the member before it keeps it between the same neighbours.
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *Config) error {
		c.RemoveMember("alice")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(tm.ConfigPath())
	if err != nil || strings.Join(cfg.MemberNames(), ",") != "team-lead,carol" || len(cfg.SkippedMembers()) != 1 {
		t.Fatalf("after removing alice: %v %v", cfg.MemberNames(), err)
	}
}

// A member row nested deeper than encoding/json reads (Claude Code's
// JSON.parse reads it) costs that row for reading: the team is read with
// its other rows. A change is refused, since it cannot be written back.
func TestADeepMemberRowCostsOnlyThatRow(t *testing.T) {
	tm := teamWithBadRow(t)
	deepRow := "    {\n      \"agentId\": \"dave@crew\",\n      \"name\": \"dave\",\n      \"deep\": " +
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n    }"
	b, _ := os.ReadFile(tm.ConfigPath())
	if err := os.WriteFile(tm.ConfigPath(), []byte(strings.Replace(string(b), badRow, deepRow, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cfg, err := Open(tm.Root, "crew")
	if err != nil {
		t.Fatalf("one deep member row made the team unusable: %v", err)
	}
	if got := strings.Join(cfg.MemberNames(), ","); got != "team-lead,alice" || len(cfg.SkippedMembers()) != 1 {
		t.Fatalf("members %q, skipped %v: want the two good rows and the deep one reported", got, cfg.SkippedMembers())
	}
	// encoding/json cannot write it back: a change is refused, naming the
	// row, and the file stays as it was.
	b, _ = os.ReadFile(tm.ConfigPath())
	_, err = tm.Update(context.Background(), lockfile.Options{}, func(c *Config) error {
		_, err := c.AddMember(Member{Name: "carol", Cwd: "/src"})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "member row 2 of "+tm.ConfigPath()) {
		t.Fatalf("update: %v, want a refusal naming member row 2", err)
	}
	if after, _ := os.ReadFile(tm.ConfigPath()); string(after) != string(b) {
		t.Fatal("a refused update changed config.json")
	}
}

// A file whose rows all decode is read in one pass of encoding/json
// (what a send, the status line and every command pay on each start), and
// reads exactly as the row-by-row path reads it: unknown keys and their
// order kept for the write back.
func TestConfigOfClaudeCodeReadInOnePass(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "claude_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var one Config
	if !one.unmarshalOnePass(b) {
		t.Fatal("Claude Code's config.json was not read in one pass")
	}
	type plain Config
	var careful Config
	if err := jsonx.Unmarshal(b, (*plain)(&careful), &careful.extra); err != nil {
		t.Fatal(err)
	}
	for i := range careful.Members {
		careful.Members[i].at = i + 1
	}
	got, err := jsonx.MarshalIndent(one)
	if err != nil {
		t.Fatal(err)
	}
	want, err := jsonx.MarshalIndent(careful)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("one pass wrote back\n%s\nthe careful path\n%s", got, want)
	}
	if len(one.Members) < 2 || one.Members[1].at != 2 {
		t.Fatalf("rows not numbered: %+v", one.Members)
	}
}
