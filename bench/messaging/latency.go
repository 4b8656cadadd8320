package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

// claudePoll is Claude Code's inbox poll interval (docs/PROTOCOL.md §6).
const claudePoll = 1000 * time.Millisecond

type latencyResult struct {
	samples     int
	endToEnd    []time.Duration // send invoked -> inbox-watch printed it
	sendOnly    []time.Duration // send invoked -> send exited (durably written)
	reference   []time.Duration // send invoked -> a 1000 ms poller saw it
	missedWatch int
}

// latency times sends to an inbox watched at once by `paneteam
// inbox-watch` and by a reader polling like Claude Code.
func (b *bench) latency(n int) (latencyResult, error) {
	r := latencyResult{samples: n}
	path := b.team.InboxPath("lat")
	watch := b.paneteam("inbox-watch", "--team", "bench", "--name", "lat", "--json")
	out, err := watch.StdoutPipe()
	if err != nil {
		return r, err
	}
	if err := watch.Start(); err != nil {
		return r, err
	}
	defer func() { watch.Process.Kill(); watch.Wait() }()
	// Each line is timed as it is read, not when the loop gets to it: the
	// watcher may print before `paneteam send` has even exited.
	printed := make(chan arrival, n+1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m mailbox.Message
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				printed <- arrival{m.Text, time.Now()}
			}
		}
	}()
	poller := startPoller(path)
	defer poller.stop()

	// The watcher is ready once it prints a first message.
	if err := b.paneteam("send", "--team", "bench", "--to", "lat", "warm-up").Run(); err != nil {
		return r, err
	}
	if _, ok := awaitText(printed, "warm-up", 10*time.Second); !ok {
		return r, fmt.Errorf("inbox-watch printed nothing within 10 s")
	}
	sent := map[string]time.Time{}
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("lat-%d", i)
		t0 := time.Now()
		sent[text] = t0
		if err := b.paneteam("send", "--team", "bench", "--to", "lat", text).Run(); err != nil {
			return r, err
		}
		r.sendOnly = append(r.sendOnly, time.Since(t0))
		if at, ok := awaitText(printed, text, 5*time.Second); ok {
			r.endToEnd = append(r.endToEnd, at.Sub(t0))
		} else {
			r.missedWatch++
		}
		time.Sleep(10 * time.Millisecond) // senders are people and scripts, not a tight loop
	}
	time.Sleep(claudePoll + 100*time.Millisecond) // let the poller see the last ones
	for text, t0 := range sent {
		if seen, ok := poller.firstSeen(text); ok {
			r.reference = append(r.reference, seen.Sub(t0))
		}
	}
	return r, nil
}

type arrival struct {
	text string
	at   time.Time
}

func awaitText(ch <-chan arrival, text string, limit time.Duration) (time.Time, bool) {
	deadline := time.After(limit)
	for {
		select {
		case got := <-ch:
			if got.text == text {
				return got.at, true
			}
		case <-deadline:
			return time.Time{}, false
		}
	}
}

// poller reads the inbox every claudePoll, without the lock, as Claude
// Code's reader does, and notes when each text first appeared.
type poller struct {
	mu   sync.Mutex
	seen map[string]time.Time
	done chan struct{}
}

func startPoller(path string) *poller {
	p := &poller{seen: map[string]time.Time{}, done: make(chan struct{})}
	go func() {
		t := time.NewTicker(claudePoll)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case now := <-t.C:
				b, err := os.ReadFile(path)
				var ms []mailbox.Message
				if err != nil || json.Unmarshal(b, &ms) != nil {
					continue
				}
				p.mu.Lock()
				for _, m := range ms {
					if _, ok := p.seen[m.Text]; !ok {
						p.seen[m.Text] = now
					}
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *poller) firstSeen(text string) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.seen[text]
	return t, ok
}

func (p *poller) stop() { close(p.done) }

func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1)+0.5)]
}

func (r latencyResult) print() {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("**Latency**: %d sends, one at a time, to an inbox watched by both readers.\n\n", r.samples)
	fmt.Println("| path | p50 | p95 | seen |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| `paneteam send` -> `paneteam inbox-watch` printed it | %s | %s | %d / %d |\n",
		ms(percentile(r.endToEnd, .5)), ms(percentile(r.endToEnd, .95)), len(r.endToEnd), r.samples)
	fmt.Printf("| (of which `paneteam send` itself, process start to durable write) | %s | %s | |\n",
		ms(percentile(r.sendOnly, .5)), ms(percentile(r.sendOnly, .95)))
	fmt.Printf("| `paneteam send` -> Claude Code's 1000 ms poller saw it | %s | %s | %d / %d |\n\n",
		ms(percentile(r.reference, .5)), ms(percentile(r.reference, .95)), len(r.reference), r.samples)
	fmt.Printf("p50 target <= 20 ms\n\n")
}
