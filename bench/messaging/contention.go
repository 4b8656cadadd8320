package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// side is one contender's outcome in one round.
type side struct {
	sent    int // messages attempted
	acked   int // reported written
	present int // actually in the inbox (or paneteam's archive) afterwards
	silent  int // reported written but not there
	wall    time.Duration
}

// lost counts messages that never arrived, reported or not.
func (s side) lost() int { return s.sent - s.present }

// writer is one way of sending senders x each messages into an inbox.
type writer struct {
	name   string
	target float64 // wall / reference, at most; 0 for the reference
	// run sends to member "to" and returns the texts acknowledged as
	// written; the rest were given up on.
	run func(b *bench, to string, senders, each int) (acked map[string]bool, err error)
}

// Issue 15's targets: one process per message at most 0.5 of the
// reference's wall, --lines at most 0.3.
var writers = []writer{
	{"paneteam send, one process per message (as a keybinding or script sends)", 0.5, (*bench).ptPerMessage},
	{"paneteam send --lines, one process per sender (as the reference)", 0.3, (*bench).ptPerSender},
	{"Claude Code 2.1.88 algorithm (Node, one process per sender)", 0, (*bench).reference},
}

// addBefore adds -before's binary's two writers, ahead of the reference
// (which stays last), so that they run in the same interleaved rounds.
func addBefore(bin string) {
	with := func(run func(*bench, string, int, int) (map[string]bool, error)) func(*bench, string, int, int) (map[string]bool, error) {
		return func(b *bench, to string, senders, each int) (map[string]bool, error) {
			other := *b
			other.bin = bin
			return run(&other, to, senders, each)
		}
	}
	ref := writers[len(writers)-1]
	writers = append(writers[:2:2],
		writer{"before: " + writers[0].name, writers[0].target, with(writers[0].run)},
		writer{"before: " + writers[1].name, writers[1].target, with(writers[1].run)},
		ref)
}

type contentionResult struct {
	senders, each int
	rounds        [][]side // [round][writer]
}

// contention sends senders x each messages into one inbox at once with
// every writer, rounds times, interleaved so that a busy spell of the
// machine falls on all of them alike.
func (b *bench) contention(senders, each, rounds int) (contentionResult, error) {
	r := contentionResult{senders: senders, each: each}
	for round := 0; round < rounds; round++ {
		var row []side
		for w, wr := range writers {
			name := fmt.Sprintf("c%d-%d", round, w)
			if err := b.addMember(name); err != nil {
				return r, err
			}
			inbox := b.team.InboxPath(name)
			start := time.Now()
			acked, err := wr.run(b, name, senders, each)
			if err != nil {
				return r, fmt.Errorf("%s: %w", wr.name, err)
			}
			s := side{sent: senders * each, acked: len(acked), wall: time.Since(start)}
			present, err := presentIn(mailbox.New(inbox, lockfile.Options{}))
			if err != nil {
				return r, err
			}
			s.present = len(present)
			for k := range acked {
				if !present[k] {
					s.silent++
				}
			}
			row = append(row, s)
		}
		r.rounds = append(r.rounds, row)
	}
	return r, nil
}

func (b *bench) addMember(name string) error {
	_, err := b.team.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		_, err := c.AddMember(team.Member{Name: name, Cwd: b.root})
		return err
	})
	return err
}

// ptPerMessage runs one `paneteam send` process per message.
func (b *bench) ptPerMessage(to string, senders, each int) (map[string]bool, error) {
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				text := fmt.Sprintf("%s-s%d-%d", to, s, i)
				err := b.paneteam("send", "--team", "bench", "--to", to, "--from", fmt.Sprintf("s%d", s), text).Run()
				if err == nil {
					mu.Lock()
					acked[text] = true
					mu.Unlock()
				}
			}
		}(s)
	}
	wg.Wait()
	return acked, nil
}

// ptPerSender runs one `paneteam send --lines --json` process per sender,
// its messages on stdin; each printed delivery is an acknowledgement.
func (b *bench) ptPerSender(to string, senders, each int) (map[string]bool, error) {
	return b.perSender(senders, func(s int) (*exec.Cmd, func(line string) (string, bool)) {
		var in strings.Builder
		for i := 0; i < each; i++ {
			fmt.Fprintf(&in, "%s-s%d-%d\n", to, s, i)
		}
		cmd := b.paneteam("send", "--team", "bench", "--to", to, "--from", fmt.Sprintf("s%d", s), "--lines", "--json")
		cmd.Stdin = strings.NewReader(in.String())
		return cmd, func(line string) (string, bool) {
			var d struct {
				Message mailbox.Message `json:"message"`
			}
			if json.Unmarshal([]byte(line), &d) != nil {
				return "", false
			}
			return d.Message.Text, true
		}
	})
}

// reference runs Claude Code's writer, one Node process per sender.
func (b *bench) reference(to string, senders, each int) (map[string]bool, error) {
	return b.perSender(senders, func(s int) (*exec.Cmd, func(line string) (string, bool)) {
		cmd := b.claudeWriter(b.team.InboxPath(to), fmt.Sprintf("%s-s%d", to, s), each)
		return cmd, func(line string) (string, bool) { return strings.CutPrefix(line, "ACK ") }
	})
}

// perSender runs one process per sender at once and collects the messages
// each acknowledges on stdout.
func (b *bench) perSender(senders int, start func(s int) (*exec.Cmd, func(string) (string, bool))) (map[string]bool, error) {
	var mu sync.Mutex
	acked := map[string]bool{}
	errs := make(chan error, senders)
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			cmd, ack := start(s)
			out, err := cmd.Output()
			mine := 0
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			mu.Lock()
			for sc.Scan() {
				if text, ok := ack(sc.Text()); ok {
					acked[text] = true
					mine++
				}
			}
			mu.Unlock()
			if err != nil && mine == 0 {
				errs <- fmt.Errorf("sender %d: %w", s, err)
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	if err, ok := <-errs; ok {
		return nil, err
	}
	return acked, nil
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

func (r contentionResult) print(w io.Writer) {
	fmt.Fprintf(w, "**Contention**: %d concurrent senders x %d messages into one inbox, %d rounds, writers interleaved.\n\n",
		r.senders, r.each, len(r.rounds))
	fmt.Fprintln(w, "| writer | round | acknowledged | lost (never arrived) | acknowledged but missing | wall |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for wi, wr := range writers {
		for ri, row := range r.rounds {
			s := row[wi]
			fmt.Fprintf(w, "| %s | %d | %d / %d | %d | %d | %s |\n", wr.name, ri+1, s.acked, s.sent, s.lost(), s.silent, s.wall.Round(time.Millisecond))
		}
	}
	ref := r.median(len(writers) - 1)
	fmt.Fprintln(w)
	for wi, wr := range writers[:len(writers)-1] {
		m := r.median(wi)
		fmt.Fprintf(w, "%s: median wall %s / reference median %s = %.2f (target <= %.2f)\n\n",
			wr.name, m.Round(time.Millisecond), ref.Round(time.Millisecond), m.Seconds()/ref.Seconds(), wr.target)
	}
}

// median is writer wi's median wall over the rounds.
func (r contentionResult) median(wi int) time.Duration {
	var ds []time.Duration
	for _, row := range r.rounds {
		ds = append(ds, row[wi].wall)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}
