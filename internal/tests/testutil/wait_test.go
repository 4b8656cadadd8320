package testutil

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fatalTB records the failure Eventually reports and stops it there, as
// t.Fatalf would.
type fatalTB struct {
	testing.TB
	msg string
}

type stopped struct{}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func failure(run func(tb testing.TB)) (msg string) {
	f := &fatalTB{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
			msg = f.msg
		}
	}()
	run(f)
	return ""
}

func TestEventuallyWaitsForTheCondition(t *testing.T) {
	n := 0
	start := time.Now()
	if msg := failure(func(tb testing.TB) {
		Eventually(tb, 5*time.Second, "three tries", func() bool { n++; return n == 3 })
	}); msg != "" || n != 3 {
		t.Fatalf("bool: failed %q after %d tries, want success on the third", msg, n)
	}
	n = 0
	if msg := failure(func(tb testing.TB) {
		Eventually(tb, 5*time.Second, "three tries", func() error {
			if n++; n < 3 {
				return errors.New("early")
			}
			return nil
		})
	}); msg != "" || n != 3 {
		t.Fatalf("error: failed %q after %d tries, want success on the third", msg, n)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("four retries took %s", time.Since(start))
	}
}

func TestEventuallyFailsSayingWhatAndTheLastError(t *testing.T) {
	start := time.Now()
	msg := failure(func(tb testing.TB) {
		Eventually(tb, 100*time.Millisecond, "the pane is gone", func() bool { return false })
	})
	if msg != "after 100ms: the pane is gone" {
		t.Errorf("bool failure = %q", msg)
	}
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Errorf("gave up after %s, before its 100ms", el)
	}
	n := 0
	msg = failure(func(tb testing.TB) {
		Eventually(tb, 100*time.Millisecond, "the reply", func() error { n++; return fmt.Errorf("try %d: inbox empty", n) })
	})
	if want := fmt.Sprintf("after 100ms: the reply: try %d: inbox empty", n); msg != want || !strings.Contains(msg, "inbox empty") {
		t.Errorf("error failure = %q, want %q (the last error)", msg, want)
	}
}
