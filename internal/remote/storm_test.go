package remote_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// nodeReader reads files the way Claude Code reads team files
// (fs.readFile as UTF-8, then JSON.parse), as fast as it can for the
// given seconds, and prints its counts as JSON.
const nodeReader = `
const fs = require('fs');
const [secs, ...files] = process.argv.slice(1);
const end = Date.now() + Number(secs) * 1000;
const r = { reads: 0, parseErrors: 0, missing: 0, other: 0, sample: '' };
(async () => {
  while (Date.now() < end) {
    for (const f of files) {
      try {
        JSON.parse(await fs.promises.readFile(f, 'utf-8'));
        r.reads++;
      } catch (e) {
        if (e.code === 'ENOENT') r.missing++;
        else if (e instanceof SyntaxError) { r.parseErrors++; r.sample = String(e).slice(0, 200); }
        else { r.other++; r.sample = String(e).slice(0, 200); }
      }
    }
    await new Promise((res) => setTimeout(res, 1));
  }
  console.log('RESULT ' + JSON.stringify(r));
})();
`

type readCounts struct {
	Reads, ParseErrors, Missing, Other int
	Sample                             string
}

func (c readCounts) bad() bool { return c.ParseErrors+c.Missing+c.Other > 0 || c.Reads == 0 }

// goReader reads files the way paneteam reads team files (one
// os.ReadFile, then json.Unmarshal) until stop closes. Both readers rest
// a millisecond between rounds: a reader per core at full speed would
// starve the writers it watches on a 2-core machine.
func goReader(files []string, stop chan struct{}) readCounts {
	var c readCounts
	for {
		select {
		case <-stop:
			return c
		default:
		}
		time.Sleep(time.Millisecond)
		for _, f := range files {
			b, err := os.ReadFile(f)
			var v any
			switch {
			case errors.Is(err, fs.ErrNotExist):
				c.Missing++
			case err != nil:
				c.Other++
				c.Sample = err.Error()
			case json.Unmarshal(b, &v) != nil:
				c.ParseErrors++
				c.Sample = string(b)
			default:
				c.Reads++
			}
		}
	}
}

func nodeResult(t *testing.T, out string) readCounts {
	t.Helper()
	i := strings.LastIndex(out, "RESULT ")
	if i < 0 {
		t.Fatalf("the Node reader printed no result:\n%s", out)
	}
	var c readCounts
	if err := json.Unmarshal([]byte(strings.TrimSpace(strings.SplitN(out[i+7:], "\n", 2)[0])), &c); err != nil {
		t.Fatalf("the Node reader's result: %v\n%s", err, out)
	}
	return c
}

// Two teammates on the host, each on its own mount, send to the lead
// while readers on the lead (as paneteam and as Claude Code read) and a
// reader on the other teammate's mount read the lead's inbox and the
// team's config; then the lead sends to a teammate while a reader on the
// host reads that inbox. No reader anywhere sees a file torn or missing,
// and no .fuse_hidden file is left.
func TestReaderStormsBothSides(t *testing.T) {
	testutil.RequireTool(t, "node")
	l := newLab(t, sshhost.Options{})
	l.paneteamTeam(t)
	team := filepath.Join(l.root, "teams", l.team)
	for _, to := range []string{"team-lead", "bob"} {
		if b, err := exec.Command(l.exe, "--root", l.root, "send", "--team", l.team, "--create-inbox", "--to", to, "--from", "carol", "first").CombinedOutput(); err != nil {
			t.Fatalf("seed %s's inbox: %v %s", to, err, b)
		}
	}
	const secs = 8
	writer := fmt.Sprintf(`end=$(( $(date +%%s) + %d )); i=0; while [ $(date +%%s) -lt $end ]; do i=$((i+1)); paneteam send --to team-lead "$PANETEAM_AGENT $i" >/dev/null || echo FAILED; done; echo "SENT $i"; sleep 60`, secs)
	paneA, _ := l.spawn(t, "alice", "sh", "-c", writer)
	// bob reads, on his own mount, the inbox alice rewrites on hers.
	mountB := "/root/.claude/paneteam/mnt/" + l.team + "/bob/teams/" + l.team
	paneB, _ := l.spawn(t, "bob", "node", "-e", nodeReader, fmt.Sprint(secs), mountB+"/inboxes/team-lead.json", mountB+"/config.json")

	stop := make(chan struct{})
	var lead readCounts
	var wg sync.WaitGroup
	wg.Add(1)
	files := []string{filepath.Join(team, "inboxes/team-lead.json"), filepath.Join(team, "config.json")}
	go func() { defer wg.Done(); lead = goReader(files, stop) }()
	leadNode := exec.Command("node", append([]string{"-e", nodeReader, fmt.Sprint(secs)}, files...)...)
	var leadNodeOut testutil.Buffer
	leadNode.Stdout, leadNode.Stderr = &leadNodeOut, &leadNodeOut
	if err := leadNode.Start(); err != nil {
		t.Fatal(err)
	}
	_, outA, _ := startPane(t, paneA)
	_, outB, _ := startPane(t, paneB)
	testutil.Eventually(t, time.Duration(secs+30)*time.Second, "the storm on the lead to end; alice's pane:\n"+outA.String(), func() bool {
		return strings.Contains(outA.String(), "SENT") && strings.Contains(outB.String(), "RESULT")
	})
	close(stop)
	wg.Wait()
	leadNode.Wait()
	if strings.Contains(outA.String(), "FAILED") {
		t.Errorf("a send from the host failed:\n%s", outA.String())
	}
	for name, c := range map[string]readCounts{"lead, as paneteam reads": lead, "lead, as Claude Code reads": nodeResult(t, leadNodeOut.String()), "host, other mount, as Claude Code reads": nodeResult(t, outB.String())} {
		t.Logf("%s: %+v", name, c)
		if c.bad() {
			t.Errorf("%s saw torn, missing or unreadable files: %+v", name, c)
		}
	}
	t.Logf("alice: %s", strings.TrimSpace(outA.String()))
	if strings.Contains(outA.String(), "SENT 0") {
		t.Error("alice sent nothing during the storm on the lead")
	}

	// The other way: the lead writes bob's inbox; a reader on the host
	// reads it through the mount of another teammate, carol.
	stop2 := make(chan struct{})
	var sent atomic.Int64
	go func() {
		for {
			select {
			case <-stop2:
				return
			default:
			}
			if exec.Command(l.exe, "--root", l.root, "send", "--team", l.team, "--create-inbox", "--to", "bob", "--from", "team-lead", "x").Run() == nil {
				sent.Add(1)
			}
		}
	}()
	mountC := "/root/.claude/paneteam/mnt/" + l.team + "/carol/teams/" + l.team
	paneC, _ := l.spawn(t, "carol", "node", "-e", nodeReader, fmt.Sprint(secs), mountC+"/inboxes/bob.json", mountC+"/config.json")
	_, outC, _ := startPane(t, paneC)
	testutil.Eventually(t, time.Duration(secs+30)*time.Second, "the storm on the host to end", func() bool { return strings.Contains(outC.String(), "RESULT") })
	close(stop2)
	c := nodeResult(t, outC.String())
	t.Logf("host, as Claude Code reads, while the lead sent %d: %+v", sent.Load(), c)
	if sent.Load() == 0 {
		t.Error("the lead sent nothing during the storm on the host")
	}
	if c.bad() {
		t.Errorf("the host saw torn, missing or unreadable files: %+v", c)
	}
	hidden, _ := filepath.Glob(filepath.Join(team, "inboxes", ".fuse_hidden*"))
	if len(hidden) > 0 {
		t.Errorf(".fuse_hidden files left in the inbox folder: %v", hidden)
	}
}
