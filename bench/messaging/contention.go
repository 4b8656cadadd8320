package main

import (
	"bufio"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// side is one contender's outcome.
type side struct {
	sent    int // messages attempted
	acked   int // reported written (send exited 0; the Node writer printed ACK)
	dropped int // given up on and reported
	present int // actually in the inbox (or paneteam's archive) afterwards
	wall    time.Duration
}

// lost counts messages that never arrived, reported or not.
func (s side) lost() int { return s.sent - s.present }

// silentlyLost counts messages reported written that are not there.
func (s side) silentlyLost(acked map[string]bool, present map[string]bool) int {
	n := 0
	for k := range acked {
		if !present[k] {
			n++
		}
	}
	return n
}

type contentionResult struct {
	senders, each int
	pt, ref       side
	ptSilent      int
	refSilent     int
}

// contention sends senders x each messages into one inbox at once, with
// `paneteam send` (one process per message, as a script or keybinding
// sends) and with Claude Code's writer (one Node process per sender).
func (b *bench) contention(senders, each int) (contentionResult, error) {
	r := contentionResult{senders: senders, each: each}
	var mu sync.Mutex
	ptAcked := map[string]bool{}
	start := time.Now()
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				text := fmt.Sprintf("pt%d-%d", s, i)
				err := b.paneteam("send", "--team", "bench", "--to", "pt", "--from", fmt.Sprintf("s%d", s), text).Run()
				mu.Lock()
				if err == nil {
					ptAcked[text] = true
				} else {
					r.pt.dropped++
				}
				mu.Unlock()
			}
		}(s)
	}
	wg.Wait()
	r.pt.wall = time.Since(start)
	r.pt.sent, r.pt.acked = senders*each, len(ptAcked)
	present, err := presentIn(mailbox.New(b.team.InboxPath("pt"), lockfile.Options{}))
	if err != nil {
		return r, err
	}
	r.pt.present, r.ptSilent = len(present), r.pt.silentlyLost(ptAcked, present)

	refAcked := map[string]bool{}
	start = time.Now()
	errs := make(chan error, senders)
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			out, err := b.claudeWriter(b.team.InboxPath("claude"), fmt.Sprintf("c%d", s), each).Output()
			if err != nil {
				errs <- fmt.Errorf("node writer: %w", err)
				return
			}
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			mu.Lock()
			defer mu.Unlock()
			for sc.Scan() {
				if text, ok := strings.CutPrefix(sc.Text(), "ACK "); ok {
					refAcked[text] = true
				} else if strings.HasPrefix(sc.Text(), "DROP ") {
					r.ref.dropped++
				}
			}
		}(s)
	}
	wg.Wait()
	r.ref.wall = time.Since(start)
	close(errs)
	if err, ok := <-errs; ok {
		return r, err
	}
	r.ref.sent, r.ref.acked = senders*each, len(refAcked)
	present, err = presentIn(mailbox.New(b.team.InboxPath("claude"), lockfile.Options{}))
	if err != nil {
		return r, err
	}
	r.ref.present, r.refSilent = len(present), r.ref.silentlyLost(refAcked, present)
	return r, nil
}

// presentIn is the set of texts in the inbox and its archive.
func presentIn(in *mailbox.Inbox) (map[string]bool, error) {
	cur, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	old, err := in.Archived()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, m := range append(cur, old...) {
		out[m.Text] = true
	}
	return out, nil
}

func (r contentionResult) print() {
	fmt.Printf("**Contention**: %d concurrent senders x %d messages into one inbox.\n\n", r.senders, r.each)
	fmt.Println("| writer | acknowledged | reported dropped | lost (never arrived) | acknowledged but missing | wall |")
	fmt.Println("|---|---|---|---|---|---|")
	row := func(name string, s side, silent int) {
		fmt.Printf("| %s | %d / %d | %d | %d | %d | %s |\n", name, s.acked, s.sent, s.dropped, s.lost(), silent, s.wall.Round(time.Millisecond))
	}
	row("paneteam send (one process per message)", r.pt, r.ptSilent)
	row("Claude Code 2.1.88 algorithm (Node, one process per sender)", r.ref, r.refSilent)
	fmt.Printf("\npaneteam wall / reference wall = %.2f (target <= 0.50)\n\n", r.pt.wall.Seconds()/r.ref.wall.Seconds())
}
