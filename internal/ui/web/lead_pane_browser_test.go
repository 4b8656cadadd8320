package web_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// leadScript stands in for Claude Code: it answers --version as the
// pinned release does, then asks its own question on its screen, as
// Claude's lead asks for a permission in the person's terminal, and
// writes every line it reads to $LEADLOG.
const leadScript = `#!/bin/sh
if [ "$1" = --version ]; then echo '2.1.330 (Claude Code)'; exit 0; fi
printf 'the lead asks: Do you want to proceed?\n 1. Yes\n 2. No\n'
while IFS= read -r l; do printf 'got:%s\n' "$l" >>"$LEADLOG"; done
`

// startLead runs 'paneteam claude args...' in a new pane of srv, as a
// person starts the lead in a tmux pane of theirs, and returns the pane,
// the lead's pid (paneteam claude becomes Claude with exec) and its log.
func startLead(t *testing.T, srv tmux.Server, bin, state string, args ...string) (pane string, pid int, log string) {
	t.Helper()
	log = filepath.Join(t.TempDir(), "lead.log")
	// env, not split-window -e: tmux gives a new pane the PATH of its
	// client, whatever -e says. PANETEAM_ANSWER_FROM_WEB is set for every
	// lead: the opt-in is the flag alone, never the environment.
	cmd := append([]string{"env", "PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PANETEAM_STATE_DIR=" + state,
		"PANETEAM_ANSWER_FROM_WEB=1",
		"LEADLOG=" + log, testutil.Binary(t), "claude"}, args...)
	argv := []string{"split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", tmux.ExecLine(cmd)}
	pane, err := srv.Run(context.Background(), argv...)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, "the lead's question on its screen", func() bool {
		return strings.Contains(capture(t, srv, pane), "the lead asks:")
	})
	out, err := srv.Run(context.Background(), "display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ = strconv.Atoi(strings.TrimSpace(out))
	return pane, pid, log
}

// TestBrowserAnswersTheLeadOnlyWhereItsPaneWasRecorded: two Claude leads
// in tmux panes of the person's, one started with 'paneteam claude
// --answer-from-web'. Its team's page shows the lead's screen and its
// answers reach that pane; the other's page says the question waits in
// the lead's terminal, offers nothing, and its request is refused, that
// lead's pane untouched.
func TestBrowserAnswersTheLeadOnlyWhereItsPaneWasRecorded(t *testing.T) {
	srv := testutil.TmuxServer(t)
	root, state, bin := testutil.Root(t), t.TempDir(), t.TempDir()
	testutil.WriteExecutable(t, filepath.Join(bin, "claude"), []byte(leadScript))
	recPane, recPID, recLog := startLead(t, srv, bin, state, "--answer-from-web")
	plainPane, plainPID, plainLog := startLead(t, srv, bin, state)

	// The record names the lead's own process, pane and server.
	var rec struct {
		PID        int    `json:"pid"`
		Terminal   string `json:"terminal"`
		TmuxSocket string `json:"tmuxSocket"`
		TmuxPane   string `json:"tmuxPane"`
	}
	files, _ := filepath.Glob(filepath.Join(state, "leadpanes", "*.json"))
	if len(files) != 1 {
		t.Fatalf("lead pane records: %v, want one (the flagged lead's; PANETEAM_ANSWER_FROM_WEB turns nothing on)", files)
	}
	if b, err := os.ReadFile(files[0]); err != nil || json.Unmarshal(b, &rec) != nil {
		t.Fatalf("%s: %v\n%s", files[0], err, b)
	}
	if rec.PID != recPID || rec.Terminal != "tmux" || rec.TmuxSocket != srv.Socket || rec.TmuxPane != recPane {
		t.Fatalf("the record %+v, want pid %d on %s pane %s", rec, recPID, srv.Socket, recPane)
	}

	testutil.ClaudeTeam(t, root, "rec", testutil.LeadFor(t, recPID))
	testutil.ClaudeTeam(t, root, "plain", testutil.LeadFor(t, plainPID))
	getenv := func(k string) string {
		if k == "PANETEAM_STATE_DIR" {
			return state
		}
		return ""
	}
	hs, tok := servePanes(t, getenv, false, team.Team{Root: root, Name: "rec"}, team.Team{Root: root, Name: "plain"})
	plainBefore := capture(t, srv, plainPane)

	ctx := paneBrowser(t)
	var note, refused string
	var plainButtons int
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/?team=rec&token="+tok),
		// The page names the terminal pane it answers: socket and id.
		waitText(`li[data-pane="team-lead"]`, "tmux pane "+recPane+" on "+srv.Socket),
		chromedp.Click(css(`button[aria-label="Show the lead's pane"]`)),
		waitText(`pre.screen`, "the lead asks: Do you want to proceed?"),
		chromedp.Click(css(`button[aria-label="Press 2 in the lead's pane"]`)),
		chromedp.Click(css(`button[aria-label="Press Enter in the lead's pane"]`)),
		chromedp.SendKeys(css(`input[aria-label="A line to type into the lead's pane"]`), "go on"),
		chromedp.Click(css(`button[aria-label="Type the line into the lead's pane"]`)),
		waitText(`pre.screen`, "go on"),

		chromedp.Navigate(hs.URL+"/?team=plain"),
		waitText(`li[data-pane="team-lead"]`, "wait there"),
		into(chromedp.Text(css(`li[data-pane="team-lead"]`)), &note),
		into(chromedp.Evaluate[int](`document.querySelectorAll('#panes button').length`), &plainButtons),
		into(postPane(`{name:"team-lead",keys:["1","Enter"]}`), &refused),
	)
	if err != nil {
		dump(t, ctx)
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the recorded lead to read the answers", func() bool {
		return readFile(t, recLog) == "got:2\ngot:go on\n"
	})
	if !strings.Contains(note, "your own terminal") || !strings.Contains(note, "--answer-from-web") || plainButtons != 0 {
		t.Errorf("the unrecorded lead's team says %q with %d buttons", note, plainButtons)
	}
	if !strings.HasPrefix(refused, "409 ") {
		t.Errorf("typing into the unrecorded lead's pane answered %s", refused)
	}
	time.Sleep(300 * time.Millisecond)
	if now := capture(t, srv, plainPane); now != plainBefore || readFile(t, plainLog) != "" {
		t.Errorf("the unrecorded lead's pane was typed into:\n%s", now)
	}
}
