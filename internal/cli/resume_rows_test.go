package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// TestResumeBelievesItsRecordNotRowsOthersWrote: config.json is written
// by others, so a teammate that still runs is never started again
// because its row was changed to name another pane or another tmux
// server, or because a second row of its name was added: not by 'resume
// --all' (what the tmux-resurrect hook runs), not by 'resume --team'.
// Two copies would run on one session. The run says why it left the
// member alone.
func TestResumeBelievesItsRecordNotRowsOthersWrote(t *testing.T) {
	w := newRSWorld(t)
	lead := leadProcess(t)
	crew := strings.TrimSpace(w.must(t, nil, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid)))
	echo := filepath.Join(t.TempDir(), "echo")
	w.must(t, nil, append([]string{"spawn-pane", "--team", crew, "--name", "echo", "--cwd", t.TempDir(), "--"}, echoTeammate(w.bin, echo)...)...)
	testutil.Eventually(t, 10*time.Second, "echo to start", fileHas(echo, "started echo"))
	socket := w.config(t, crew).Paneteam.TmuxSocket
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })
	lead.Process.Kill()
	lead.Wait()

	tm, real, err := team.Open(w.root, crew)
	if err != nil {
		t.Fatal(err)
	}
	row := *real.Member("echo")
	plant := func(change func(c *team.Config)) {
		t.Helper()
		_, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
			for i := range c.Members {
				if c.Members[i].Name == "echo" {
					c.Members[i] = row
					meta := *row.Paneteam
					c.Members[i].Paneteam = &meta
				}
			}
			change(c)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	echoRow := func(c *team.Config) *team.Member { return c.Member("echo") }

	for _, attack := range []struct {
		what   string
		change func(c *team.Config)
	}{
		{"its row names another pane", func(c *team.Config) { echoRow(c).TmuxPaneID = "%999" }},
		{"its row names another tmux server", func(c *team.Config) {
			echoRow(c).Paneteam.TmuxSocket = filepath.Join(filepath.Dir(socket), "elsewhere")
		}},
		{"a second row of its name names another pane", func(c *team.Config) {
			dup := row
			dup.TmuxPaneID = "%999"
			c.Members = append(c.Members, dup)
		}},
	} {
		plant(attack.change)
		out := w.must(t, nil, "resume", "--all")
		if n := countIn(echo, "started echo"); n != 1 {
			t.Fatalf("%s: resume --all started echo again (%d copies run):\n%s", attack.what, n, out)
		}
	}

	// The last attack, a second row: resume --team flags it and starts
	// nothing; with the row restored it says how it knows echo runs.
	out := w.must(t, nil, "resume", "--team", crew)
	if !strings.Contains(out, "crew/echo: not started: config.json holds 1 other row(s) of this name") {
		t.Errorf("resume --team with a second echo row says:\n%s\nwant it flagged", out)
	}
	_, err = tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.Members = c.Members[:len(c.Members)-1]
		c.Member("echo").TmuxPaneID = "%999"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out = w.must(t, nil, "resume", "--team", crew)
	if !strings.Contains(out, "crew/echo: still running, left alone (its process ") {
		t.Errorf("resume --team with echo's row changed says:\n%s\nwant it left alone, saying its recorded process runs", out)
	}
	if n := countIn(echo, "started echo"); n != 1 {
		t.Fatalf("resume --team started echo again (%d copies run):\n%s", n, out)
	}
}
