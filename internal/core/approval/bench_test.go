package approval

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// BenchmarkPendingLongHistory is what status pays per call for "needs
// you" on a team whose lead has 20 000 archived messages, 200 of them
// requests (all answered) and 2 waiting.
func BenchmarkPendingLongHistory(b *testing.B) {
	l := crew(b)
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		m := entry("alice", fmt.Sprintf("progress report %d: %s", i, strings.Repeat("x", 200)), t0.Add(time.Duration(i)*time.Millisecond))
		if i%100 == 0 {
			m = entry("alice", permFrame(fmt.Sprintf("perm-%d-aaaaaaa", i), "alice", "Bash", exampleInput), m.Time())
		}
		line, _ := m.MarshalJSON()
		sb.Write(line)
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(mailbox.ArchivePath(l.Team.InboxPath(team.LeadName)), []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Pending(l.Team.Root, "crew"); err != nil {
			b.Fatal(err)
		}
	}
}
