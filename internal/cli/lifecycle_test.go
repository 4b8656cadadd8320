package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/testutil"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// scriptedTeammate answers a shutdown request the way its first argument
// says (approve: answer and exit; reject: answer and keep running; silent:
// never answer), replying with 'paneteam send --type' as any teammate may.
const scriptedTeammate = `#!/bin/sh
mode=$1 pt=$2
inbox="$PANETEAM_ROOT/teams/$PANETEAM_TEAM/inboxes/$PANETEAM_AGENT.json"
[ "$mode" = silent ] && exec sleep 2147483647
answered=
while :; do
	for id in $(grep -o 'shutdown-[0-9]*@[A-Za-z0-9_-]*' "$inbox" 2>/dev/null); do
		case " $answered " in *" $id "*) continue ;; esac
		answered="$answered $id"
		if [ "$mode" = approve ]; then
			exec "$pt" send --to team-lead --type shutdown_approved --request-id "$id"
		fi
		"$pt" send --to team-lead --type shutdown_rejected --request-id "$id" --reason "halfway through the parser"
	done
	sleep 0.05
done
`

// lcWorld is one test's team root and tmux server, and the environment
// that runs paneteam inside the server's guard pane.
type lcWorld struct {
	root, bin, script string
	srv               tmux.Server
	vars              []string
}

func newLCWorld(t *testing.T) *lcWorld {
	t.Helper()
	srv := testutil.TmuxServer(t)
	w := &lcWorld{root: testutil.Root(t), bin: testutil.Binary(t), srv: srv}
	w.script = filepath.Join(t.TempDir(), "teammate.sh")
	if err := os.WriteFile(w.script, []byte(scriptedTeammate), 0o755); err != nil {
		t.Fatal(err)
	}
	w.vars = append(testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv)),
		"PANETEAM_ROOT="+w.root, "PANETEAM_TMUX_CONFIG=/dev/null", "TMUX_TMPDIR="+testutil.ShortTempDir(t))
	return w
}

func (w *lcWorld) run(t *testing.T, extra []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env = testutil.Env(append(append([]string{}, w.vars...), extra...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (w *lcWorld) must(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := w.run(t, nil, args...)
	if code != 0 {
		t.Fatalf("paneteam %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return strings.TrimSpace(out)
}

// spawn starts a scripted teammate and returns its pane id.
func (w *lcWorld) spawn(t *testing.T, teamName, name, mode string, flags ...string) string {
	t.Helper()
	args := append([]string{"spawn-pane", "--team", teamName, "--name", name, "--json"}, flags...)
	out := w.must(t, append(args, "--", "/bin/sh", w.script, mode, w.bin)...)
	var res struct {
		PaneID string `json:"pane_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("spawn-pane output %q: %v", out, err)
	}
	return res.PaneID
}

// panes lists the pane ids on a server ("" when it is not running).
func panes(srv tmux.Server) string {
	out, err := srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		return ""
	}
	return " " + strings.Join(strings.Fields(out), " ") + " "
}

func hasPane(srv tmux.Server, id string) bool { return strings.Contains(panes(srv), " "+id+" ") }

func members(t *testing.T, root, name string) string {
	t.Helper()
	cfg, err := team.Load(team.Team{Root: root, Name: name}.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(cfg.MemberNames(), ",")
}

func TestShutdownTeammatesInTmuxPanes(t *testing.T) {
	w := newLCWorld(t)
	lead := testutil.FirstPane(t, w.srv)
	tn := w.must(t, "team-create", "crew")
	alice := w.spawn(t, tn, "alice", "approve")
	erin := w.spawn(t, tn, "erin", "approve")
	bob := w.spawn(t, tn, "bob", "reject")
	carol := w.spawn(t, tn, "carol", "silent")

	_, errs, code := w.run(t, nil, "shutdown", "--team", tn, "--all", "--timeout", "3s")
	if code != ExitFailure || !strings.Contains(errs, "not shut down: bob, carol") {
		t.Fatalf("shutdown --all: exit %d, stderr %q", code, errs)
	}
	if hasPane(w.srv, alice) || hasPane(w.srv, erin) {
		t.Fatalf("approving teammates' panes still open: %s", panes(w.srv))
	}
	if !hasPane(w.srv, bob) || !hasPane(w.srv, carol) || !hasPane(w.srv, lead) {
		t.Fatalf("a refusing or silent teammate, or the lead, lost its pane: %s", panes(w.srv))
	}
	if got := members(t, w.root, tn); got != "team-lead,bob,carol" {
		t.Fatalf("members: %s", got)
	}

	out, _, code := w.run(t, nil, "shutdown", "--team", tn, "--name", "bob", "carol", "--timeout", "1s", "--force", "--json")
	if code != 0 {
		t.Fatalf("shutdown --force: exit %d: %s", code, out)
	}
	var res struct {
		Members []struct {
			Name, Answer string
			Forced       bool
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Members) != 2 || res.Members[0].Answer != "rejected" || res.Members[1].Answer != "none" || !res.Members[0].Forced || !res.Members[1].Forced {
		t.Fatalf("--json result: %s", out)
	}
	if hasPane(w.srv, bob) || hasPane(w.srv, carol) || !hasPane(w.srv, lead) {
		t.Fatalf("panes after --force: %s", panes(w.srv))
	}
	w.must(t, "cleanup", "--team", tn)
	tm := team.Team{Root: w.root, Name: tn}
	if _, err := os.Stat(tm.Dir()); err == nil {
		t.Fatal("team folder left after cleanup")
	}
	if !hasPane(w.srv, lead) {
		t.Fatal("cleanup closed the lead's pane")
	}
}

func TestCleanupRefusesActiveTeammatesUntilForced(t *testing.T) {
	w := newLCWorld(t)
	tn := w.must(t, "team-create", "crew")
	pane := w.spawn(t, tn, "alice", "silent")
	// A pane on the same server that paneteam did not make.
	mine, err := w.srv.Run(context.Background(), "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}

	_, errs, code := w.run(t, nil, "cleanup", "--team", tn)
	if code != ExitFailure || !strings.Contains(errs, "active members: alice") || !strings.Contains(errs, "paneteam shutdown --team "+tn+" --all") {
		t.Fatalf("cleanup with an active teammate: exit %d, %q", code, errs)
	}
	if !hasPane(w.srv, pane) {
		t.Fatal("refused cleanup closed a pane")
	}
	out := w.must(t, "cleanup", "--team", tn, "--force")
	if hasPane(w.srv, pane) || !hasPane(w.srv, mine) || !strings.Contains(out, "deleted") {
		t.Fatalf("cleanup --force: %q; panes %s", out, panes(w.srv))
	}
}
