package teamwatch

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// BenchmarkQuietPoll is one safety-net poll of a watcher on a team of
// 30 teammates where nothing changed: what paneteam web spends every
// second while a page is open on a quiet team.
func BenchmarkQuietPoll(b *testing.B) {
	now := time.Now()
	var names []string
	for i := 0; i < 30; i++ {
		names = append(names, fmt.Sprintf("mate%02d", i))
	}
	tm := teamtest.New(b, "bench", team.CreateOptions{Cwd: b.TempDir(), Now: now, LeaderPID: 1},
		teamtest.Like(team.Member{JoinedAt: now.UnixMilli(), BackendType: team.BackendTmux}, names...)...)
	for _, n := range names[:10] {
		m := mailbox.Message{From: n, Timestamp: mailbox.Timestamp(now),
			Text: `{"type":"idle_notification","from":"` + n + `","timestamp":"` + mailbox.Timestamp(now) + `","idleReason":"available"}`}
		if err := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{}).Append(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
	w := NewWatcher(tm, WatchOptions{PollOnly: true})
	ctx := context.Background()
	prev, err := w.snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	w.last = prev
	b.ReportAllocs()
	for b.Loop() {
		s, err := w.snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if ev := Diff(w.last, s, w.opts.lockAge()); len(ev) > 0 {
			b.Fatalf("a quiet poll found events: %v", ev)
		}
		w.last = s
	}
}
