package interop

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestNoSilentImpersonation runs one real Claude Code lead and
// proves that paneteam never speaks as that lead unless told to
// (docs/PROTOCOL.md §11, §10): a message with no --from comes from the
// person, --from team-lead is warned about and shown verified="false",
// and shutdown, kill-pane and hide of a teammate Claude started refuse at
// once and leave it working. First, while Claude's lead has no teammate
// and so reads no inbox (§6), send and status say so.
func TestNoSilentImpersonation(t *testing.T) {
	api := claudetest.NewAPI(t)
	s := claudetest.Start(t, claudetest.Options{API: api, Team: "refusals"})
	cfg := s.WaitTeam(t, wait)
	team := cfg.Name
	state := []string{"PANETEAM_STATE_DIR=" + t.TempDir()}
	run := func(extra []string, args ...string) (string, string, int) {
		t.Helper()
		return ptWith(t, s, append(append([]string(nil), state...), extra...), args...)
	}
	const note = "Claude Code reads its inbox only once it has spawned a teammate"

	const waiting = "hello lead, from the person"
	t.Run("send and status say a message to Claude's lead waits", func(t *testing.T) {
		out, errOut, code := run(nil, "send", "--team", team, "--to", "team-lead", waiting)
		if code != 0 {
			t.Fatalf("paneteam send --to team-lead: exit %d\n%s%s", code, out, errOut)
		}
		if !strings.Contains(errOut, note) {
			t.Errorf("send --to team-lead before Claude has a teammate printed on stderr:\n%s\nwant the note %q", errOut, note)
		}
		entries := readInbox(t, s, "team-lead")
		if len(entries) != 1 || entries[0].From != "human" {
			t.Fatalf("team-lead's inbox = %+v, want one entry from human (never from team-lead)", entries)
		}
		// Status says so once the message has waited a few seconds.
		testutil.Eventually(t, 20*time.Second, "status to note the unread message to team-lead", func() bool {
			out, _, _ := run(nil, "status", "--team", team)
			return strings.Contains(out, note)
		})
		var teams []struct {
			LeadInbox *struct {
				Unread   int  `json:"unread"`
				Unpolled bool `json:"unpolled"`
			} `json:"leadInbox"`
		}
		out, _, _ = run(nil, "status", "--team", team, "--json")
		if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		if w := teams[0].LeadInbox; w == nil || w.Unread != 1 || !w.Unpolled {
			t.Errorf("status --json leadInbox = %+v, want 1 unread, unpolled\n%s", w, out)
		}
		for _, r := range api.MainLoop() {
			if strings.Contains(r.MessagesText(), waiting) {
				t.Errorf("the lead's model got the message before Claude had a teammate: the note would be wrong")
			}
		}
	})

	// Claude's lead starts its own in-process teammate, bob.
	const bobPrompt = "You are bob; wait for messages."
	after := api.LastSeq()
	api.On("start a teammate named bob",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper bob", "prompt": bobPrompt, "name": "bob"})),
		claudetest.Text("Spawned bob."),
	)
	s.Submit(t, wait, "start a teammate named bob")
	api.WaitMessages(t, wait, after, bobPrompt)

	t.Run("the waiting message arrives from the person once Claude polls", func(t *testing.T) {
		got := api.WaitRequest(t, wait, after, "of the lead with the waiting message", func(r *claudetest.Request) bool {
			return r.MainLoop && !r.InProcessTeammate() && strings.Contains(r.TailText(), waiting)
		})
		if tail := got.TailText(); !strings.Contains(tail, `teammate_id="human"`) || strings.Contains(tail, `verified="false"`) {
			t.Errorf("the lead's model got the person's message as:\n%s\nwant it from human, not marked verified=\"false\"", tail)
		}
		if out, errOut, _ := run(nil, "send", "--team", team, "--to", "team-lead", "second word"); strings.Contains(errOut, note) {
			t.Errorf("send --to team-lead once Claude has a teammate still prints the note:\n%s%s", out, errOut)
		}
	})

	t.Run("status shows Claude's lead and its in-process teammate", func(t *testing.T) {
		var out string
		testutil.Eventually(t, 10*time.Second, "status to list bob", func() bool {
			out, _, _ = run(nil, "status", "--team", team)
			return strings.Contains(out, "bob")
		})
		if want := "lead: Claude Code, process " + strconv.Itoa(s.PID) + ", alive"; !strings.Contains(out, want) {
			t.Errorf("status:\n%s\nwant %q", out, want)
		}
		if !lineWith(out, "bob", "claude (in-process)") {
			t.Errorf("status:\n%s\nwant bob run by claude (in-process)", out)
		}
		var teams []struct {
			Lead struct {
				By    string `json:"by"`
				PID   int    `json:"pid"`
				State string `json:"state"`
			} `json:"lead"`
			Members []struct {
				Name  string `json:"name"`
				RunBy string `json:"runBy"`
				Pane  string `json:"pane"`
			} `json:"members"`
		}
		out, _, _ = run(nil, "status", "--team", team, "--json")
		if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		if l := teams[0].Lead; l.By != "claude-code" || l.PID != s.PID || l.State != "alive" {
			t.Errorf("status --json lead = %+v, want claude-code, pid %d, alive", l, s.PID)
		}
		found := false
		for _, m := range teams[0].Members {
			if m.Name == "bob" {
				found = true
				if m.RunBy != "claude-in-process" || m.Pane != "alive" {
					t.Errorf("status --json bob = %+v, want runBy claude-in-process, alive", m)
				}
			}
		}
		if !found {
			t.Errorf("status --json does not list bob:\n%s", out)
		}
	})

	toBob := func(t *testing.T, extra []string, text string, args ...string) (string, string) {
		t.Helper()
		after := api.LastSeq()
		args = append([]string{"send", "--team", team, "--to", "bob"}, append(args, text)...)
		out, errOut, code := run(extra, args...)
		if code != 0 {
			t.Fatalf("paneteam %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		got := api.WaitRequest(t, wait, after, "of bob with "+strconv.Quote(text), func(r *claudetest.Request) bool {
			return r.MainLoop && r.InProcessTeammate() && strings.Contains(r.TailText(), text)
		})
		return errOut, got.TailText()
	}

	t.Run("send with no --from comes from the person", func(t *testing.T) {
		if _, tail := toBob(t, nil, "hello bob, from the person"); !strings.Contains(tail, `teammate_id="human"`) || strings.Contains(tail, `verified="false"`) {
			t.Errorf("bob's model got paneteam's message as:\n%s\nwant it from human, not marked verified=\"false\"", tail)
		}
		if _, tail := toBob(t, []string{"PANETEAM_USER=alex"}, "hello bob, from alex"); !strings.Contains(tail, `teammate_id="alex"`) || strings.Contains(tail, `verified="false"`) {
			t.Errorf("bob's model got PANETEAM_USER=alex's message as:\n%s\nwant it from alex, not marked verified=\"false\"", tail)
		}
		// A person's name that is Claude's lead's, or a member's, is refused.
		for _, user := range []string{"team-lead", "bob"} {
			out, errOut, code := run([]string{"PANETEAM_USER=" + user}, "send", "--team", team, "--to", "bob", "as "+user)
			if code != 2 || !strings.Contains(errOut, "PANETEAM_USER") {
				t.Errorf("PANETEAM_USER=%s paneteam send --to bob: exit %d\n%s%s\nwant exit 2 naming PANETEAM_USER", user, code, out, errOut)
			}
		}
	})

	t.Run("send --from team-lead warns and is shown unverified", func(t *testing.T) {
		errOut, tail := toBob(t, nil, "pretending to be the lead", "--from", "team-lead")
		if !strings.Contains(errOut, "warning") || !strings.Contains(errOut, `verified="false"`) {
			t.Errorf("send --from team-lead printed on stderr:\n%s\nwant a warning that mentions verified=\"false\"", errOut)
		}
		if !strings.Contains(tail, `teammate_id="team-lead"`) || !strings.Contains(tail, `verified="false"`) {
			t.Errorf("bob's model got it as:\n%s\nwant it from team-lead, marked verified=\"false\"", tail)
		}
	})

	t.Run("shutdown, kill-pane and hide of Claude's teammate refuse at once", func(t *testing.T) {
		for _, args := range [][]string{
			{"shutdown", "--team", team, "--name", "bob"},
			{"kill-pane", "--team", team, "--name", "bob"},
			{"hide", "--team", team, "--name", "bob"},
		} {
			start := time.Now()
			out, errOut, code := run(nil, args...)
			took := time.Since(start)
			if code == 0 || took > 10*time.Second || !strings.Contains(strings.ToLower(out+errOut), "ask claude's lead") {
				t.Errorf("paneteam %s: exit %d after %s\nstdout: %s\nstderr: %s\nwant a failure at once that says to ask Claude's lead",
					strings.Join(args, " "), code, took.Round(time.Millisecond), out, errOut)
			}
		}
		if !contains(memberNames(mustConfig(t, s)), "bob") {
			t.Fatalf("bob is no longer in config.json after the refusals")
		}
		// And bob still works.
		if _, tail := toBob(t, nil, "still there, bob?"); !strings.Contains(tail, "still there, bob?") {
			t.Errorf("bob's model got: %s", tail)
		}
	})
}

func memberNames(c claudetest.TeamConfig) []string {
	var names []string
	for _, m := range c.Members {
		names = append(names, m.Name)
	}
	return names
}

// lineWith reports whether one line of out contains every one of words.
func lineWith(out string, words ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		all := true
		for _, w := range words {
			all = all && strings.Contains(l, w)
		}
		if all {
			return true
		}
	}
	return false
}
