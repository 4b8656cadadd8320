package mailbox_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/paneteam/paneteam/mailbox"
)

// Many senders at once share writes; every message sent is in the inbox
// exactly once, in each sender's own order, and the queue is left empty.
func TestSendGroupCommitsConcurrentSenders(t *testing.T) {
	in := archiveInbox(t)
	const senders, each = 8, 12
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			box := mailbox.New(in.Path, in.Lock)
			for i := 0; i < each; i++ {
				if err := box.Send(context.Background(), msg(fmt.Sprint(s), fmt.Sprintf("%d-%d", s, i))); err != nil {
					errs <- err
					return
				}
				// Acknowledged means on disk already.
				all, err := box.ReadAll()
				if err != nil {
					errs <- err
					return
				}
				if !containsText(all, fmt.Sprintf("%d-%d", s, i)) {
					errs <- fmt.Errorf("send of %d-%d returned before the message was in the inbox", s, i)
					return
				}
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all, err := in.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != senders*each {
		t.Fatalf("inbox holds %d messages, want %d", len(all), senders*each)
	}
	next := map[string]int{}
	for _, m := range all {
		want := fmt.Sprintf("%s-%d", m.From, next[m.From])
		if m.Text != want {
			t.Fatalf("sender %s's messages out of order: got %s, want %s", m.From, m.Text, want)
		}
		next[m.From]++
	}
	left, _ := os.ReadDir(mailbox.SpoolDir(in.Path))
	if len(left) != 0 {
		t.Fatalf("queue not emptied: %d files left", len(left))
	}
}

func containsText(ms []mailbox.Message, text string) bool {
	for _, m := range ms {
		if m.Text == text {
			return true
		}
	}
	return false
}
