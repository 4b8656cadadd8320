package remote_test

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Two teammates on the host (each on its own mount) and two senders on
// the lead write the lead's inbox at the same time. paneteam's own queue
// lock (flock) excludes only processes locking the same file through the
// same kernel, so here only the lock folder keeps the four apart: a
// holder's record in the flock file must not make another machine's live
// lock look like a dead holder's. Every acknowledged message is in the
// inbox exactly once.
func TestLeadAndHostWritersLoseNothing(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	l.paneteamTeam(t)
	const n = 60
	writer := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do i=$((i+1)); paneteam send --to team-lead "$PANETEAM_AGENT $i" >/dev/null || echo FAILED; done; echo "SENT $i"; sleep 60`, n)
	paneA, _ := l.spawn(t, "alice", "sh", "-c", writer)
	paneB, _ := l.spawn(t, "bob", "sh", "-c", writer)
	_, outA, _ := startPane(t, paneA)
	_, outB, _ := startPane(t, paneB)
	// Two senders on the lead, for as long as the host sends.
	var wg sync.WaitGroup
	var leadFailed, leadSent []string
	var mu sync.Mutex
	stop := make(chan struct{})
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				text := fmt.Sprintf("lead %d-%d", w, i)
				b, err := exec.Command(l.exe, "--root", l.root, "send", "--team", l.team, "--to", "team-lead", "--from", "carol", "--create-inbox", text).CombinedOutput()
				mu.Lock()
				if err != nil {
					leadFailed = append(leadFailed, fmt.Sprintf("%s: %v %s", text, err, b))
				} else {
					leadSent = append(leadSent, text)
				}
				mu.Unlock()
				// A pause: a writer that takes the lock again at once
				// starves the host's (the lock is not fair).
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	testutil.Eventually(t, 120*time.Second, "the host's sends to end; its panes:\n"+outA.String()+outB.String(), func() bool {
		return strings.Contains(outA.String(), "SENT") && strings.Contains(outB.String(), "SENT")
	})
	close(stop)
	wg.Wait()
	if host := outA.String() + outB.String(); strings.Contains(host, "FAILED") || len(leadFailed) > 0 {
		t.Errorf("sends failed: host:\n%s\nlead: %v", host, leadFailed)
	}
	count := map[string]int{}
	for _, text := range l.inbox(t, "team-lead") {
		count[text]++
	}
	var lost, twice []string
	want := leadSent
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprintf("alice %d", i), fmt.Sprintf("bob %d", i))
	}
	t.Logf("%d from the host, %d from the lead", 2*n, len(leadSent))
	for _, k := range want {
		{
			switch count[k] {
			case 0:
				lost = append(lost, k)
			case 1:
			default:
				twice = append(twice, k)
			}
		}
	}
	if len(lost)+len(twice) > 0 {
		t.Errorf("lost %d: %v; more than once: %v", len(lost), lost, twice)
	}
}
