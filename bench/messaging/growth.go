package main

import (
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

type growthResult struct {
	old, writes int
	// paneteam: each `paneteam send` timed on its own.
	ptEmpty, ptFull []time.Duration
	// reference: one Node process writing `writes` messages, less the
	// same process writing none (node's start-up), per write.
	refEmpty, refFull time.Duration
}

// growth times writes into an empty inbox and into one holding old read
// messages, as Claude Code leaves an inbox (it never prunes).
func (b *bench) growth(old, writes int) (growthResult, error) {
	r := growthResult{old: old, writes: writes}
	for _, name := range []string{"full", "cfull"} {
		if err := writeOld(b.team.InboxPath(name), old); err != nil {
			return r, err
		}
	}
	for _, c := range []struct {
		name string
		out  *[]time.Duration
	}{{"empty", &r.ptEmpty}, {"full", &r.ptFull}} {
		for i := 0; i < writes; i++ {
			t0 := time.Now()
			if err := b.paneteam("send", "--team", "bench", "--to", c.name, fmt.Sprintf("new-%d", i)).Run(); err != nil {
				return r, fmt.Errorf("send to %s: %w", c.name, err)
			}
			*c.out = append(*c.out, time.Since(t0))
		}
	}
	base, err := b.timeNode(b.team.InboxPath("cempty"), 0)
	if err != nil {
		return r, err
	}
	for _, c := range []struct {
		name string
		out  *time.Duration
	}{{"cempty", &r.refEmpty}, {"cfull", &r.refFull}} {
		// More writes than paneteam's: node's start-up varies more than a
		// write into an empty inbox costs.
		d, err := b.timeNode(b.team.InboxPath(c.name), 5*writes)
		if err != nil {
			return r, err
		}
		*c.out = (d - base) / time.Duration(5*writes)
	}
	return r, nil
}

func (b *bench) timeNode(inbox string, n int) (time.Duration, error) {
	t0 := time.Now()
	if out, err := b.claudeWriter(inbox, "ref", n).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("node writer: %v: %s", err, out)
	}
	return time.Since(t0), nil
}

// writeOld fills an inbox with n delivered messages of a typical size.
func writeOld(path string, n int) error {
	ms := make([]mailbox.Message, n)
	t := time.Now().Add(-24 * time.Hour)
	for i := range ms {
		ms[i] = mailbox.Message{From: "alice", Text: fmt.Sprintf("old message %d: the build passed, moving on to the next task in the list", i),
			Summary: "progress", Timestamp: mailbox.Timestamp(t.Add(time.Duration(i) * time.Second)), Read: true}
	}
	data, err := mailbox.Encode(ms)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func (r growthResult) print() {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("**Growth**: %d writes into an empty inbox and into one holding %d old read messages.\n\n", r.writes, r.old)
	fmt.Println("| writer | empty inbox | 20,000 old messages | ratio |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| paneteam send, mean of %d (first write into the full inbox archives the old ones) | %s | %s | %.2fx |\n",
		r.writes, ms(mean(r.ptEmpty)), ms(mean(r.ptFull)), mean(r.ptFull).Seconds()/mean(r.ptEmpty).Seconds())
	fmt.Printf("| paneteam send, median | %s | %s | %.2fx |\n",
		ms(median(r.ptEmpty)), ms(median(r.ptFull)), median(r.ptFull).Seconds()/median(r.ptEmpty).Seconds())
	fmt.Printf("| paneteam send, first write | %s | %s | %.2fx |\n",
		ms(r.ptEmpty[0]), ms(r.ptFull[0]), r.ptFull[0].Seconds()/r.ptEmpty[0].Seconds())
	fmt.Printf("| Claude Code algorithm, per write (Node start-up subtracted) | %s | %s | %.2fx |\n\n",
		ms(r.refEmpty), ms(r.refFull), r.refFull.Seconds()/r.refEmpty.Seconds())
	fmt.Printf("growth target <= 3x\n\n")
}
