package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// The §9 example: Claude Code digests this Bash input to
// exampleDigest (docs/PROTOCOL.md §9).
const (
	exampleInput  = `{"timeout":120000,"description":"Run tests","command":"npm test"}`
	exampleDigest = "e4ac10ba6550f9f50de70a5b32c709be470c91397479351792e6c34b666633b1"
	examplePlan   = "# Plan\n\n1. Edit main.go\n2. Run tests\n"
	examplePlanD  = "578210cd64f61e98325097f5ce65c2e87ddfc7726269c9a37a75ddff94bd5e83"
	permID        = "perm-1767225600000-abc1234"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// crew makes a team "crew" with teammates alice and bob under a fresh root.
func crew(t testing.TB) *Lead {
	t.Helper()
	tm := teamtest.New(t, "crew", team.CreateOptions{Cwd: "/src", Now: t0},
		teamtest.Like(team.Member{JoinedAt: t0.UnixMilli()}, "alice", "bob")...)
	return &Lead{Team: tm}
}

func entry(from, text string, at time.Time) mailbox.Message {
	return mailbox.Message{From: from, Text: text, Timestamp: mailbox.Timestamp(at), Color: "blue"}
}

func permFrame(id, agent, tool, input string) string {
	return `{"type":"permission_request","request_id":"` + id + `","agent_id":"` + agent + `","tool_name":"` + tool +
		`","tool_use_id":"toolu_01","description":"Run tests","input":` + input + `,"permission_suggestions":[]}`
}

func sandboxFrame(id, worker, host string) string {
	return `{"type":"sandbox_permission_request","requestId":"` + id + `","workerId":"` + worker + `@crew","workerName":"` +
		worker + `","workerColor":"blue","hostPattern":{"host":"` + host + `"},"createdAt":1767225600000}`
}

func planFrame(id, from, plan string) string {
	b, _ := json.Marshal(map[string]string{"type": "plan_approval_request", "from": from, "timestamp": "2026-01-01T00:00:00.000Z",
		"planFilePath": "/home/u/.claude/plans/p.md", "planContent": plan, "requestId": id})
	return string(b)
}

// writeInbox writes the lead's inbox as Claude Code lays it out.
func writeInbox(t *testing.T, l *Lead, msgs ...mailbox.Message) {
	t.Helper()
	writeJSON(t, l.Team.InboxPath(team.LeadName), msgs)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeArchive writes messages to the lead's archive, one per line, as
// mailbox archives read messages.
func writeArchive(t *testing.T, l *Lead, msgs ...mailbox.Message) {
	t.Helper()
	var b strings.Builder
	for _, m := range msgs {
		m.Read = true
		line, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(mailbox.ArchivePath(l.Team.InboxPath(team.LeadName)), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// inbox reads a teammate's inbox.
func inbox(t *testing.T, l *Lead, name string) []mailbox.Message {
	t.Helper()
	msgs, err := mailbox.New(l.Team.InboxPath(name), lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func ids(rs []Request) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return strings.Join(out, " ")
}

func waiting(t *testing.T, l *Lead) []Request {
	t.Helper()
	ls, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	return ls.Waiting()
}
