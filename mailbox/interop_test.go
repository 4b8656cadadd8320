package mailbox_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// TestConcurrentWritersLoseNothing is the promise paneteam makes when it
// shares ~/.claude with Claude Code: 50 paneteam processes and a Node
// writer locking exactly as Claude Code does append to one inbox while
// some paneteam writers are SIGKILLed at random moments (also while they
// hold the lock). Every message whose send exited 0 is in the inbox
// exactly once, nothing is there twice, and the file parses throughout.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	bin := testutil.Binary(t)
	tm := teamtest.New(t, "load", team.CreateOptions{}, teamtest.Named("alice")...)
	root := tm.Root
	inbox := tm.InboxPath("alice")

	const writers, perWriter, nodeCount = 50, 4, 40
	var acked sync.Map // text -> true
	var tried, killed atomic.Int64

	// The Node peer: Claude Code's algorithm, in the same run.
	node := testutil.ClaudeInboxWriter(t, inbox, "claude", "node", nodeCount)
	nodeOut, _ := node.StdoutPipe()
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	var nodeDropped atomic.Int64
	nodeDone := make(chan struct{})
	go func() {
		defer close(nodeDone)
		sc := bufio.NewScanner(nodeOut)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) >= 2 && f[0] == "ACK":
				acked.Store(f[1], true)
			case len(f) >= 2 && f[0] == "DROP":
				nodeDropped.Add(1) // Claude Code's own give-up; not ours to count
			}
		}
	}()

	// An unlocked reader, like Claude Code's poller, all along.
	stop := make(chan struct{})
	var readErr atomic.Value
	go func() {
		in := mailbox.New(inbox, lockfile.Options{})
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := in.ReadAll(); err != nil {
				readErr.Store(err)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()

	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < perWriter; i++ {
				text := fmt.Sprintf("w%d-%d", w, i)
				cmd := exec.Command(bin, "--root", root, "send", "--team", tm.Name, "--to", "alice", "--from", fmt.Sprintf("w%d", w), text)
				cmd.Env = testutil.Env()
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				tried.Add(1)
				if rng.Intn(6) == 0 {
					delay := time.Duration(rng.Intn(40)) * time.Millisecond
					timer := time.AfterFunc(delay, func() {
						if cmd.Process.Signal(os.Kill) == nil {
							killed.Add(1)
						}
					})
					defer timer.Stop()
				}
				if err := cmd.Wait(); err == nil {
					acked.Store(text, true)
				}
			}
		}(w)
	}
	wg.Wait()
	node.Wait()
	<-nodeDone
	close(stop)

	if err, _ := readErr.Load().(error); err != nil {
		t.Fatalf("an unlocked reader failed to read the inbox: %v", err)
	}
	// One more write after the storm: it must get through (a killed holder's
	// lock is taken over) and leave no lock behind.
	last := exec.Command(bin, "--root", root, "send", "--team", tm.Name, "--to", "alice", "--from", "closer", "last")
	last.Env = testutil.Env()
	if out, err := last.CombinedOutput(); err != nil {
		t.Fatalf("send after the storm: %v: %s", err, out)
	}
	acked.Store("last", true)
	if _, err := os.Stat(inbox + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("a lock directory outlived every writer: %v", err)
	}

	raw, err := os.ReadFile(inbox)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []mailbox.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatalf("final inbox does not parse: %v", err)
	}
	count := map[string]int{}
	for _, m := range msgs {
		count[m.Text]++
	}
	for text, n := range count {
		if n > 1 {
			t.Errorf("%q is in the inbox %d times", text, n)
		}
	}
	nAcked := 0
	acked.Range(func(k, _ any) bool {
		nAcked++
		if count[k.(string)] != 1 {
			t.Errorf("acknowledged message %q is missing", k)
		}
		return true
	})
	temps, _ := filepath.Glob(filepath.Join(filepath.Dir(inbox), ".alice.json.*.tmp"))
	t.Logf("paneteam sends tried %d, SIGKILLs %d; acknowledged %d (incl. Node); Node dropped %d of %d; inbox holds %d; temp files left by killed writers %d",
		tried.Load(), killed.Load(), nAcked, nodeDropped.Load(), nodeCount, len(msgs), len(temps))
	if killed.Load() == 0 {
		t.Fatal("no writer was killed: the test proved nothing about crashes")
	}
}
