package teamwatch

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// memoTeam is a team whose lead has three unread messages (one a request
// waiting for it) and a request in its archive, and whose alice has one
// unread message, all written an hour ago, so that a status line may
// memoise them.
func memoTeam(t *testing.T) (team.Team, time.Time) {
	t.Helper()
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob")...)
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "alice", Text: "one"})
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "bob", Text: frameText(t, map[string]any{
		"type": "sandbox_permission_request", "requestId": "sandbox-1-abc", "workerName": "bob", "hostPattern": map[string]any{"host": "example.com"}})})
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "alice", Text: "three"})
	appendMsg(t, tm, "alice", mailbox.Message{From: "bob", Text: "hi"})
	// A plan request the lead's inbox no longer holds: its archive does.
	line, _ := json.Marshal(mailbox.Message{From: "alice", Read: true, Timestamp: mailbox.Timestamp(time.Now()), Text: frameText(t, map[string]any{
		"type": "plan_approval_request", "from": "alice", "requestId": "plan_approval-1@alice@crew", "planContent": "# Plan",
		"planFilePath": "/tmp/plan.md", "timestamp": mailbox.Timestamp(time.Now())})})
	arch := mailbox.ArchivePath(tm.InboxPath(team.LeadName))
	if err := os.WriteFile(arch, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range []string{tm.InboxPath(team.LeadName), tm.InboxPath("alice"), arch} {
		if err := os.Chtimes(p, hourAgo, hourAgo); err != nil {
			t.Fatal(err)
		}
	}
	return tm, hourAgo
}

func takeMembers(t *testing.T, tm team.Team, memo string) *Snapshot {
	t.Helper()
	s, err := Take(context.Background(), tm, Options{MembersOnly: true, MemoDir: memo})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rewriteSameSig marks every message of an inbox read and makes every
// request something else, in place, keeping
// its size, inode and mtime: what no signature can tell from the file
// that was counted.
func rewriteSameSig(t *testing.T, path string, mtime time.Time) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	same := bytes.ReplaceAll(b, []byte(`"read": false`), []byte(`"read": true `))
	same = bytes.ReplaceAll(same, []byte(`_request`), []byte(`_reqxest`)) // no longer a request
	if bytes.Equal(same, b) {
		t.Fatalf("no unread message to mark in %s", b)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(same, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// A status line over inboxes that have not changed since its last look
// reads none of them: the counts come from the memo. The proof: the
// inboxes are rewritten under the same signature (every message read
// now), and the memo's counts, the lead's waiting request included, are
// still what is shown; a look without the memo sees the rewrite. Once
// an inbox's signature changes it is counted afresh.
func TestAnUnchangedInboxIsNotReadAgain(t *testing.T) {
	tm, hourAgo := memoTeam(t)
	memo := t.TempDir()
	first := takeMembers(t, tm, memo)
	if got := first.Member(team.LeadName); got.Unread != 3 || first.Member("alice").Unread != 1 || first.Member("bob").Waiting != 1 ||
		first.Member("alice").Waiting != 1 {
		t.Fatalf("first look: %+v", first.Members)
	}
	// The requests come from the memo too, the lead's inbox's and its
	// archive's; only the record of answers is read.
	rewriteSameSig(t, tm.InboxPath(team.LeadName), hourAgo)
	rewriteSameSig(t, tm.InboxPath("alice"), hourAgo)
	rewriteSameSig(t, mailbox.ArchivePath(tm.InboxPath(team.LeadName)), hourAgo)
	if fresh := takeMembers(t, tm, ""); fresh.Member(team.LeadName).Unread != 0 || fresh.Member("bob").Waiting != 0 ||
		fresh.Member("alice").Waiting != 0 {
		t.Fatalf("the rewrite did not mark the messages read: %+v", fresh.Members)
	}
	second := takeMembers(t, tm, memo)
	if !reflect.DeepEqual(first.Members, second.Members) || !reflect.DeepEqual(first.Problems, second.Problems) {
		t.Fatalf("an unchanged inbox was read again:\nfirst:  %+v\nsecond: %+v", first.Members, second.Members)
	}

	// A new mtime is a change: counted afresh.
	now := time.Now().Add(-time.Minute)
	if err := os.Chtimes(tm.InboxPath(team.LeadName), now, now); err != nil {
		t.Fatal(err)
	}
	third := takeMembers(t, tm, memo)
	if third.Member(team.LeadName).Unread != 0 || third.Member("bob").Waiting != 0 || third.Member("alice").Unread != 1 {
		t.Fatalf("a changed inbox was not counted afresh: %+v", third.Members)
	}
}

// An inbox written less than memoSettle ago is counted but not memoised:
// a second write within a coarse mtime's tick would keep its signature.
func TestAFreshlyWrittenInboxIsNotMemoised(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice")...)
	appendMsg(t, tm, "alice", mailbox.Message{From: "bob", Text: "hi"})
	memo := t.TempDir()
	takeMembers(t, tm, memo)
	st, _ := os.Stat(tm.InboxPath("alice"))
	rewriteSameSig(t, tm.InboxPath("alice"), st.ModTime())
	if s := takeMembers(t, tm, memo); s.Member("alice").Unread != 0 {
		t.Fatalf("a just-written inbox was taken from the memo: %+v", s.Members)
	}
}

// Whatever is found in place of the memo (not JSON, another version, a
// link to a forged one, a huge file) is ignored: the inboxes are counted
// afresh, and nothing about it reaches the person.
func TestAnOddMemoIsIgnored(t *testing.T) {
	tm, hourAgo := memoTeam(t)
	memo := t.TempDir()
	takeMembers(t, tm, memo)
	path := memoPath(memo, tm.Dir())
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no memo written: %v", err)
	}
	// From now on the inboxes say 0 unread under the memoised signatures:
	// a memo that is used shows 3 and 1.
	rewriteSameSig(t, tm.InboxPath(team.LeadName), hourAgo)
	rewriteSameSig(t, tm.InboxPath("alice"), hourAgo)
	forged := filepath.Join(t.TempDir(), "forged.json")
	if err := os.WriteFile(forged, good, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		plant func() error
	}{
		{"not JSON", func() error { return os.WriteFile(path, []byte("{not json"), 0o600) }},
		{"another version", func() error {
			return os.WriteFile(path, bytes.Replace(good, []byte(`{"v":1,`), []byte(`{"v":2,`), 1), 0o600)
		}},
		{"a folder", func() error { return os.Mkdir(path, 0o700) }},
		{"a link to a memo", func() error { return os.Symlink(forged, path) }},
		{"too large", func() error {
			return os.WriteFile(path, append(good, bytes.Repeat([]byte(" "), memoMaxFile)...), 0o600)
		}},
	} {
		os.RemoveAll(path)
		if err := c.plant(); err != nil {
			t.Fatal(err)
		}
		s := takeMembers(t, tm, memo)
		if s.Member(team.LeadName).Unread != 0 || s.Member("alice").Unread != 0 || len(s.Problems) != 0 {
			t.Errorf("%s: %+v %v, want every inbox counted afresh and no problem", c.name, s.Members, s.Problems)
		}
	}
	// The link was replaced, never written through.
	if b, _ := os.ReadFile(forged); !bytes.Equal(b, good) {
		t.Errorf("the memo was written through a link")
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Errorf("memo mode %v, want 0600", st.Mode())
	}
}

// The lead-inbox note counts unread messages at least LeadInboxMinAge
// old at the time of the look: a memo taken when one was recent counts
// it once it has aged, and one taken "in the future" (a clock set back)
// is not used.
func TestTheMemoisedLeadCountAges(t *testing.T) {
	asOf := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	l := memoLead{AsOf: asOf, Old: 2, Recent: []time.Time{asOf.Add(-time.Second), asOf.Add(time.Hour)}}
	for _, c := range []struct {
		now  time.Time
		n    int
		used bool
	}{
		{asOf, 2, true},
		{asOf.Add(4 * time.Second), 3, true},
		{asOf.Add(2 * time.Hour), 4, true},
		{asOf.Add(-time.Second), 0, false},
	} {
		if n, ok := l.unreadAt(c.now); n != c.n || ok != c.used {
			t.Errorf("at %v: %d %t, want %d %t", c.now.Sub(asOf), n, ok, c.n, c.used)
		}
	}
}

// The memo changes nothing a person sees: the fixture of the members-only
// test, taken twice with a memo (the second from it), is what a look
// without one shows.
func TestTheMemoShowsWhatACountShows(t *testing.T) {
	tm, _ := memoTeam(t)
	appendMsg(t, tm, "bob", mailbox.Message{From: "alice", Text: frameText(t, map[string]any{"type": mailbox.TypeIdle, "from": "alice", "idleReason": "done"})})
	if err := os.WriteFile(tm.InboxPath("carol"), []byte(`[{"from": 7, "text": "x"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour)
	for _, n := range []string{"bob", "carol"} {
		os.Chtimes(tm.InboxPath(n), hourAgo, hourAgo)
	}
	want := takeMembers(t, tm, "")
	memo := t.TempDir()
	for i := 0; i < 2; i++ {
		got := takeMembers(t, tm, memo)
		if !reflect.DeepEqual(want.Members, got.Members) || !reflect.DeepEqual(want.Problems, got.Problems) {
			t.Fatalf("look %d differs:\nwant %+v %v\ngot  %+v %v", i+1, want.Members, want.Problems, got.Members, got.Problems)
		}
	}
	if len(want.Problems) == 0 || !strings.Contains(strings.Join(want.Problems, "\n"), "carol") {
		t.Fatalf("the bad entry is not reported: %v", want.Problems)
	}
}
