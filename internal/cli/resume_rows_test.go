package cli

import (
	"context"
	"encoding/json"
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

// TestStatusResumableIsWhatResumeWouldStart: status (and the dashboard,
// on the same snapshot) says a team is resumable only when 'paneteam
// resume' would start someone. A row others changed in config.json, or
// a second row of a member's name, makes a running teammate's row look
// gone; resume believes its launch record and starts nothing, so status
// must not offer it. Once the teammate is really gone, both agree again.
func TestStatusResumableIsWhatResumeWouldStart(t *testing.T) {
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
	meta := *row.Paneteam
	row.Paneteam = &meta
	plant := func(change func(c *team.Config)) {
		t.Helper()
		_, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
			members := c.Members[:0]
			for _, m := range c.Members {
				if m.Name != "echo" {
					members = append(members, m)
				}
			}
			r := row
			m := *row.Paneteam
			r.Paneteam = &m
			c.Members = append(members, r)
			change(c)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// agree checks status --json's resumable members against what resume
	// --dry-run --json would start.
	agree := func(what string) []string {
		t.Helper()
		var st []struct {
			Resumable *struct {
				Members []string `json:"members"`
			} `json:"resumable"`
		}
		if err := json.Unmarshal([]byte(w.must(t, nil, "status", "--team", crew, "--json")), &st); err != nil || len(st) != 1 {
			t.Fatalf("%s: status --json: %v", what, err)
		}
		var shown []string
		if st[0].Resumable != nil {
			shown = st[0].Resumable.Members
		}
		var res struct {
			Started []struct {
				Name string `json:"name"`
			} `json:"started"`
		}
		if err := json.Unmarshal([]byte(w.must(t, nil, "resume", "--team", crew, "--dry-run", "--json")), &res); err != nil {
			t.Fatalf("%s: resume --dry-run --json: %v", what, err)
		}
		var would []string
		for _, s := range res.Started {
			would = append(would, s.Name)
		}
		if strings.Join(shown, ",") != strings.Join(would, ",") {
			t.Errorf("%s: status shows resumable %q, resume --dry-run would start %q", what, shown, would)
		}
		return would
	}

	for _, attack := range []struct {
		what   string
		change func(c *team.Config)
	}{
		{"its row names another pane", func(c *team.Config) { c.Member("echo").TmuxPaneID = "%999" }},
		{"its row names another tmux server", func(c *team.Config) {
			c.Member("echo").Paneteam.TmuxSocket = filepath.Join(filepath.Dir(socket), "elsewhere")
		}},
		{"a second row of its name names another pane", func(c *team.Config) {
			c.Member("echo").TmuxPaneID = "%999"
			dup := *c.Member("echo")
			c.Members = append(c.Members, dup)
		}},
	} {
		plant(attack.change)
		if would := agree(attack.what); len(would) != 0 {
			t.Errorf("%s: resume --dry-run would start %q though echo runs", attack.what, would)
		}
	}

	// Really gone: both offer echo, but not while a second row of its
	// name is there (resume leaves such a member alone).
	exec.Command("tmux", "-S", socket, "kill-server").Run()
	shown := func() string {
		out, _, _ := w.run(t, nil, "status", "--team", crew, "--json")
		return out
	}
	plant(func(*team.Config) {})
	testutil.Eventually(t, 10*time.Second, "status to offer echo", func() bool { return strings.Contains(shown(), `"resumable"`) })
	plant(func(c *team.Config) { c.Members = append(c.Members, *c.Member("echo")) })
	if would := agree("echo gone, a second row of its name"); len(would) != 0 {
		t.Errorf("resume --dry-run would start %q with two rows of echo", would)
	}
	plant(func(*team.Config) {})
	if would := agree("echo gone"); strings.Join(would, ",") != "echo" {
		t.Errorf("resume --dry-run would start %q, want echo", would)
	}
}
