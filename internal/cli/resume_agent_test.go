package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// standProfile is a person's own profile of a stand-in agent CLI: it
// continues a session with --resume, and its hook names the session as
// "sid". A profile without "resume" (plain) continues none.
const standProfile = `{
  "program": %q,
  "prompt": ["--prompt", "{{prompt}}"],
  "resume": ["--resume", "{{session}}"],
  "env": {"PT": "{{paneteam}}"},
  "permission": {"default": []},
  "idleHook": true,
  "hookInput": {"from": "stdin", "reply": "reply", "match": {"event": "end"}, "session": "sid"}
}`

// TestResumeContinuesAnAgentCLIsOwnSession: teammates of a person's own
// agent CLI profile (a stand-in whose turn-end hook names its session)
// lose their tmux server. resume starts alice's CLI with the profile's
// resume flag and her session, and says so (how continued, her session,
// her launch record); bob's CLI refuses his session (it exits at once)
// and is started fresh, told so in his inbox; carol's profile has no
// resume, so she starts fresh and is told so.
func TestResumeContinuesAnAgentCLIsOwnSession(t *testing.T) {
	w := newRSWorld(t)
	dir := t.TempDir()
	cli, argvLog := filepath.Join(dir, "stand"), filepath.Join(dir, "argv")
	testutil.WriteExecutable(t, cli, []byte("#!/bin/sh\n"+
		"l=$(echo \"$PANETEAM_AGENT $*\" | tr '\\n' ' '); printf '%s\\n' \"$l\" >> '"+argvLog+"'\n"+
		"case \" $* \" in *\" --resume s-bob \"*) echo 'no session s-bob'; exit 1;; esac\n"+
		"printf '{\"event\":\"end\",\"sid\":\"s-%s\",\"reply\":\"done\"}' \"$PANETEAM_AGENT\" | \"$PT\" agent-hook \"${0##*/}\"\n"+
		"exec sleep 600\n"))
	if err := os.Symlink(cli, filepath.Join(dir, "plain")); err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	agents := filepath.Join(config, "paneteam", "agents")
	os.MkdirAll(agents, 0o700)
	os.WriteFile(filepath.Join(agents, "stand.json"), []byte(strings.Replace(standProfile, "%q", strconv.Quote(cli), 1)), 0o600)
	plain := strings.Replace(strings.Replace(standProfile, "%q", strconv.Quote(filepath.Join(dir, "plain")), 1), `"resume": ["--resume", "{{session}}"],`, "", 1)
	os.WriteFile(filepath.Join(agents, "plain.json"), []byte(plain), 0o600)
	w.vars = append(w.vars, "XDG_CONFIG_HOME="+config)

	lead := leadProcess(t)
	crew := strings.TrimSpace(w.must(t, nil, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid)))
	for _, m := range [][2]string{{"alice", "stand"}, {"bob", "stand"}, {"carol", "plain"}} {
		w.must(t, nil, "spawn-pane", "--team", crew, "--name", m[0], "--agent", m[1], "--prompt", "Take task 1.")
	}
	tm := team.Team{Root: w.root, Name: crew}
	testutil.Eventually(t, 10*time.Second, "each hook to name its session", func() bool {
		for _, n := range []string{"alice", "bob", "carol"} {
			if id, _ := agentrun.ReadSession(tm, n); id != "s-"+n {
				return false
			}
		}
		return true
	})

	socket := w.config(t, crew).Paneteam.TmuxSocket
	t.Cleanup(func() {
		// The server the resumed team runs on, whichever it is, goes
		// too, before the team's folder is removed under its teammates.
		exec.Command("tmux", "-S", socket, "kill-server").Run()
		if cfg, err := team.Load(tm.ConfigPath()); err == nil && cfg.Paneteam != nil && cfg.Paneteam.TmuxSocket != socket {
			exec.Command("tmux", "-S", cfg.Paneteam.TmuxSocket, "kill-server").Run()
		}
	})
	exec.Command("tmux", "-S", socket, "kill-server").Run()
	lead.Process.Kill()
	lead.Wait()

	var res resume.Result
	if err := json.Unmarshal([]byte(w.must(t, nil, "resume", "--team", crew, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]resume.Started{}
	for _, s := range res.Started {
		got[s.Name] = s
	}
	if s := got["alice"]; s.How != resume.Continued || s.SessionID == nil || *s.SessionID != "s-alice" || s.Error != "" {
		t.Errorf("alice: %+v; want her session s-alice continued", s)
	}
	if s := got["bob"]; s.How != resume.Fresh || !strings.Contains(s.Note, "would not continue session s-bob: no session s-bob") || s.Error != "" {
		t.Errorf("bob: %+v; want started fresh, saying his CLI would not continue s-bob", s)
	}
	if s := got["carol"]; s.How != resume.Fresh || !strings.Contains(s.Note, "continues no session") || s.Error != "" {
		t.Errorf("carol: %+v; want started fresh: her profile continues no session", s)
	}

	// Each run's arguments, on one line, by teammate.
	runs := map[string][]string{}
	testutil.Eventually(t, 10*time.Second, "each CLI to run again", func() bool {
		b, _ := os.ReadFile(argvLog)
		runs = map[string][]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			name, args, _ := strings.Cut(l, " ")
			runs[name] = append(runs[name], args)
		}
		return len(runs["alice"]) >= 2 && len(runs["bob"]) >= 3 && len(runs["carol"]) >= 2
	})
	if r := runs["alice"]; len(r) != 2 || !strings.HasPrefix(r[1], "--resume s-alice --prompt") || !strings.Contains(r[1], "started you again") {
		t.Errorf("alice's CLI ran as %q; want its spawn, then --resume s-alice with paneteam's word that she was started again", r)
	}
	if r := runs["bob"]; len(r) != 3 || !strings.HasPrefix(r[1], "--resume s-bob") || strings.Contains(r[2], "--resume") {
		t.Errorf("bob's CLI ran as %q; want its spawn, a --resume s-bob, then a fresh run", r)
	}
	if r := runs["carol"]; len(r) != 2 || strings.Contains(r[1], "--resume") {
		t.Errorf("carol's CLI ran as %q; want its spawn, then a fresh run", r)
	}
	for _, n := range []string{"bob", "carol"} {
		if inbox := w.must(t, nil, "inbox", "--team", crew, "--name", n, "--json"); !strings.Contains(inbox, "in a fresh") {
			t.Errorf("%s's inbox:\n%s\nwant a message saying it starts a fresh session", n, inbox)
		}
	}
	if inbox := w.must(t, nil, "inbox", "--team", crew, "--name", "alice", "--json"); strings.Contains(inbox, "fresh") {
		t.Errorf("alice's inbox:\n%s\nwant no word of a fresh session", inbox)
	}
	recs, _ := launches.Open(w.state).List(w.root, crew)
	for _, r := range recs {
		want := map[string]string{"alice": "s-alice"}[r.Agent]
		if r.CLISession != want || r.Pane != got[r.Agent].PaneID || slices.Contains(r.Args, "--cli-session") {
			t.Errorf("%s's launch record after resume: %+v; want cliSession %q, its new pane, its first command line", r.Agent, r, want)
		}
	}
}
