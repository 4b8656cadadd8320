package post

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/paneteam/paneteam/mailbox"
)

// SendLines sends each line of r (a front end's stdin) as its own plain
// message to every recipient, in order, each on disk before the next line
// is read; blank lines are skipped. delivered, when not nil, is told of
// each delivery as it is written (to print it at once); its error stops
// the stream. It stops at the first line it cannot deliver and says how
// far it got. ctx ends it between lines, the normal way to stop a stream
// that never closes (SIGINT, SIGTERM): a line already read is still
// delivered, and the end is not an error.
func (p *Post) SendLines(ctx context.Context, r io.Reader, to []string, summary string, delivered func(Delivery) error) error {
	inboxes := make([]*mailbox.Inbox, len(to))
	for i, name := range to {
		inboxes[i] = p.Inbox(name)
	}
	lines, stop := readLines(r)
	defer stop()
	done := 0
	for n := 1; ; n++ {
		var l readLine
		select {
		case l = <-lines:
		case <-ctx.Done():
			return nil
		}
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			return fmt.Errorf("read line %d from stdin: %w (%s)", n, l.err, deliveredSoFar(done))
		}
		text := strings.TrimSuffix(strings.TrimSuffix(l.text, "\n"), "\r")
		if strings.TrimSpace(text) != "" {
			m := p.Message(mailbox.Message{Text: text, Summary: summary})
			if err := m.Validate(); err != nil {
				return fmt.Errorf("line %d: %w (%s)", n, err, deliveredSoFar(done))
			}
			for i, in := range inboxes {
				// A line read is delivered even if a signal comes meanwhile.
				if err := in.Send(context.WithoutCancel(ctx), m); err != nil {
					if i > 0 {
						return fmt.Errorf("line %d: send to %s: %w (it reached %s; %s)", n, to[i], err, strings.Join(to[:i], ", "), deliveredSoFar(done))
					}
					return fmt.Errorf("line %d: send to %s: %w (%s)", n, to[i], err, deliveredSoFar(done))
				}
				if delivered != nil {
					if err := delivered(Delivery{To: to[i], Message: m}); err != nil {
						return err
					}
				}
			}
			done++
		}
		if errors.Is(l.err, io.EOF) {
			return nil
		}
	}
}

type readLine struct {
	text string
	err  error // io.EOF with the last (possibly empty) text
}

// readLines reads r line by line in the background, so that waiting for
// the next line can be given up; stop ends the reading.
func readLines(r io.Reader) (<-chan readLine, func()) {
	out := make(chan readLine)
	done := make(chan struct{})
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			text, err := br.ReadString('\n')
			select {
			case out <- readLine{text, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, func() { close(done) }
}

func deliveredSoFar(n int) string {
	if n == 1 {
		return "the 1 message before it was delivered"
	}
	return fmt.Sprintf("the %d messages before it were delivered", n)
}
