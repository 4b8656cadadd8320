package mailbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

func archiveInbox(t *testing.T) *mailbox.Inbox {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "inboxes")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return mailbox.New(filepath.Join(dir, "alice.json"), lockfile.Options{})
}

func msg(from, text string) mailbox.Message {
	return mailbox.Message{From: from, Text: text, Timestamp: mailbox.Timestamp(time.Now())}
}

func texts(ms []mailbox.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return strings.Join(out, ",")
}

func TestArchivePathBesideInbox(t *testing.T) {
	got := mailbox.ArchivePath("/r/teams/x/inboxes/team-lead.json")
	if got != "/r/teams/x/inboxes/team-lead.archive.jsonl" {
		t.Fatalf("archive path = %s", got)
	}
}

// Claude Code marks messages read and never prunes; paneteam's next write
// moves them to the archive, in order, and keeps every unread one.
func TestWriteMovesReadMessagesToArchive(t *testing.T) {
	in := archiveInbox(t)
	ctx := context.Background()
	// An inbox as Claude Code leaves it: two delivered (read), one not.
	old := []mailbox.Message{msg("bob", "one"), msg("bob", "two"), msg("carol", "three")}
	old[0].Read, old[1].Read = true, true
	b, _ := mailbox.Encode(old)
	if err := os.WriteFile(in.Path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	if err := in.Append(ctx, msg("dave", "four")); err != nil {
		t.Fatal(err)
	}
	all, err := in.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if texts(all) != "three,four" {
		t.Fatalf("inbox holds %q, want the unread three,four", texts(all))
	}
	arch, err := in.Archived()
	if err != nil {
		t.Fatal(err)
	}
	if texts(arch) != "one,two" || !arch[0].Read {
		t.Fatalf("archive holds %q (read=%v), want one,two read", texts(arch), arch[0].Read)
	}
	st, err := os.Stat(in.ArchivePath())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("archive mode %v, want 0600: it holds private messages", st.Mode().Perm())
	}

	// Marking read moves exactly those messages on, after the older ones.
	if n, err := in.MarkRead(ctx, all[:1]); err != nil || n != 1 {
		t.Fatalf("MarkRead = %d, %v", n, err)
	}
	all, _ = in.ReadAll()
	arch, _ = in.Archived()
	if texts(all) != "four" || texts(arch) != "one,two,three" {
		t.Fatalf("after mark-read: inbox %q archive %q", texts(all), texts(arch))
	}
}

// The archive is fsynced before the inbox is rewritten, so a crash between
// the two leaves messages in both; the next write archives them again and
// the reader shows each once. A line cut short by a crash hides nothing.
func TestArchiveSurvivesCrashBetweenSteps(t *testing.T) {
	in := archiveInbox(t)
	a, b := msg("bob", "a"), msg("bob", "b")
	a.Read, b.Read = true, true
	inboxBytes, _ := mailbox.Encode([]mailbox.Message{a, b})
	if err := os.WriteFile(in.Path, inboxBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	// Crash 1 archived a and died before the rename; crash 2 died halfway
	// through writing a line.
	lineA := fmt.Sprintf(`{"from":"bob","text":"a","timestamp":%q,"read":true}`, a.Timestamp)
	if err := os.WriteFile(in.ArchivePath(), []byte(lineA+"\n"+lineA[:20]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := in.Append(context.Background(), msg("carol", "c")); err != nil {
		t.Fatal(err)
	}
	arch, err := in.Archived()
	if err != nil {
		t.Fatal(err)
	}
	if texts(arch) != "a,b" {
		t.Fatalf("archive shows %q, want a,b once each", texts(arch))
	}
	all, _ := in.ReadAll()
	if texts(all) != "c" {
		t.Fatalf("inbox holds %q, want c", texts(all))
	}
}

// Writers and readers that mark read race; at the end every message sent
// is in the inbox or the archive exactly once.
func TestArchiveNeverLosesAMessage(t *testing.T) {
	in := archiveInbox(t)
	ctx := context.Background()
	const writers, each = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			box := mailbox.New(in.Path, in.Lock)
			for i := 0; i < each; i++ {
				if err := box.Append(ctx, msg(fmt.Sprintf("w%d", w), fmt.Sprintf("w%d-%d", w, i))); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	done, readerDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(readerDone)
		box := mailbox.New(in.Path, in.Lock)
		for {
			select {
			case <-done:
				return
			default:
			}
			unread, err := box.Unread()
			if err != nil {
				errs <- err
				return
			}
			if len(unread) > 0 {
				if _, err := box.MarkRead(ctx, unread[:len(unread)/2+1]); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	wg.Wait()
	close(done)
	<-readerDone
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all, err := in.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	arch, err := in.Archived()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, m := range append(all, arch...) {
		count[m.Text]++
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			if k := fmt.Sprintf("w%d-%d", w, i); count[k] != 1 {
				t.Errorf("message %s found %d times in inbox+archive, want 1", k, count[k])
			}
		}
	}
	if len(arch) == 0 {
		t.Fatal("the reader marked messages read but none reached the archive")
	}
	for _, m := range all {
		if m.Read {
			t.Fatalf("read message %q left in the inbox after later writes", m.Text)
		}
	}
}
