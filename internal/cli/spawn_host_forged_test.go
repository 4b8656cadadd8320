package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// A teammate on another host can rewrite the team's config.json through
// its mount. These tests rewrite it as such a host would and show that
// the lead, acting on the file, does nothing outside the team.

// forge rewrites member name's row of the team's config.json.
func (s *spTeam) forge(t *testing.T, name string, edit func(row map[string]any)) {
	t.Helper()
	path := filepath.Join(s.root, "teams", s.name, "config.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	members, _ := cfg["members"].([]any)
	found := false
	for _, m := range members {
		row := m.(map[string]any)
		if row["name"] == name {
			edit(row)
			found = true
		}
	}
	if !found {
		row := map[string]any{"name": name}
		edit(row)
		cfg["members"] = append(members, row)
	}
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A member's tmuxPaneId pointed at a pane of the person's own (and its
// agentId emptied, so that "no agent" would match the pane's none):
// kill-pane closes nothing and says why.
func TestForgedPaneIDDoesNotCloseThePersonsPane(t *testing.T) {
	s := spInside(t)
	s.mustRun("spawn-pane", "--team", s.name, "--name", "bob", "--", "sleep", "600")
	own, err := s.srv.Run(context.Background(), "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", s.lead, "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	own = strings.TrimSpace(own)
	s.forge(t, "bob", func(row map[string]any) { row["tmuxPaneId"], row["agentId"] = own, "" })

	out, errOut, code := s.run("kill-pane", "--team", s.name, "--name", "bob")
	if code == 0 {
		t.Errorf("kill-pane acted on a forged row: %q %q", out, errOut)
	}
	if !strings.Contains(errOut, "leaving pane "+own+" alone") {
		t.Errorf("kill-pane did not say it leaves the pane alone: %q", errOut)
	}
	if got, _ := s.srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}"); !strings.Contains(got, own+"\n") {
		t.Fatalf("the person's pane %s was closed through a forged config.json; panes: %q", own, got)
	}
}

// The team's name rewritten to another team's, with a member row copied
// from that team (its agentId and pane): kill-pane on this team closes
// nothing of the other team, and every command says the name is wrong.
func TestForgedTeamNameDoesNotReachAnotherTeam(t *testing.T) {
	s := spInside(t)
	s.mustRun("team-create", "other", "--leader-pid", strconv.Itoa(os.Getpid()))
	out := s.mustRun("spawn-pane", "--team", "other", "--name", "bob", "--json", "--", "sleep", "600")
	var theirs struct {
		PaneID  string `json:"pane_id"`
		AgentID string `json:"agent_id"`
	}
	if err := json.Unmarshal([]byte(out), &theirs); err != nil || theirs.PaneID == "" {
		t.Fatalf("spawn-pane --json: %v %q", err, out)
	}
	s.mustRun("spawn-pane", "--team", s.name, "--name", "bob", "--", "sleep", "600")
	s.forge(t, "bob", func(row map[string]any) { row["tmuxPaneId"], row["agentId"] = theirs.PaneID, "bob@other" })
	path := filepath.Join(s.root, "teams", s.name, "config.json")
	b, _ := os.ReadFile(path)
	var cfg map[string]any
	json.Unmarshal(b, &cfg)
	cfg["name"] = "other"
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	_, errOut, code := s.run("kill-pane", "--team", s.name, "--name", "bob")
	if code == 0 {
		t.Errorf("kill-pane acted on a config.json that names another team")
	}
	if !strings.Contains(errOut, `name "other" belongs in teams/other`) {
		t.Errorf("kill-pane did not say the team's name was changed: %q", errOut)
	}
	if got, _ := s.srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}"); !slices.Contains(strings.Fields(got), theirs.PaneID) {
		t.Fatalf("team other's pane %s was closed through team %s's config.json; panes: %q", theirs.PaneID, s.name, got)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(b) {
		t.Errorf("paneteam rewrote the misnamed config.json:\n%s", after)
	}
}

// A member's worktreePath pointed at a clean worktree of the person's
// elsewhere: kill-pane removes the member but never that worktree.
func TestForgedWorktreePathIsNotRemoved(t *testing.T) {
	testutil.RequireTool(t, "git")
	s := spInside(t)
	repo := t.TempDir()
	other := filepath.Join(t.TempDir(), "other")
	for _, a := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"}, {"worktree", "add", "-q", "-b", "mine", other}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, a...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", a, err, out)
		}
	}
	s.mustRun("spawn-pane", "--team", s.name, "--name", "bob", "--", "sleep", "600")
	s.forge(t, "bob", func(row map[string]any) { row["worktreePath"] = other })

	out, errOut, _ := s.run("kill-pane", "--team", s.name, "--name", "bob")
	if _, err := os.Stat(filepath.Join(other, ".git")); err != nil {
		t.Fatalf("the person's worktree %s was removed through a forged config.json: %v", other, err)
	}
	if !strings.Contains(out+errOut, "not where paneteam puts bob's worktree") {
		t.Errorf("kill-pane did not say why it kept %s: %q %q", other, out, errOut)
	}
}

// A member row whose name climbs out of the lead's private folder of
// remote teammates to a record the host wrote into the team's folder
// (naming a command for the lead to run as "ssh"): cleanup never reads
// it, runs nothing, and says why.
func TestForgedMemberNameDoesNotReachTheLeadsRecords(t *testing.T) {
	s := spInside(t)
	s.vars = append(s.vars, "XDG_RUNTIME_DIR="+testutil.ShortTempDir(t))
	mark := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(s.root, "teams", s.name, "evil")
	rec, _ := json.Marshal(map[string]any{"host": "h", "ssh": []string{"sh", "-c", "touch " + mark + "; exit 1"}, "controlPath": evil + ".sock"})
	if err := os.WriteFile(evil+".json", rec, 0o600); err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("../", 30) + strings.TrimPrefix(evil, "/")
	s.forge(t, name, func(row map[string]any) {
		row["agentId"] = name + "@" + s.name
		row["backendType"], row["tmuxPaneId"] = "tmux", "%999"
		row["paneteam"] = map[string]any{"tmuxSocket": filepath.Join(t.TempDir(), "none")}
	})

	out, errOut, _ := s.run("cleanup", "--team", s.name, "--force")
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("the lead ran a command from a record the host wrote: %q %q", out, errOut)
	}
	if !strings.Contains(out+errOut, "cannot be a teammate paneteam started on a host") {
		t.Errorf("cleanup did not say why it left the row alone: %q %q", out, errOut)
	}
}

// An in-process teammate's host pid, or its record, pointed at a process
// of the person's own: kill-pane signals nothing and says why.
func TestForgedHostProcessIsNotSignalled(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		forge      func(s *spTeam, pid int) func(row map[string]any)
	}{
		{"pid", "is not the one paneteam recorded", func(s *spTeam, pid int) func(map[string]any) {
			return func(row map[string]any) {
				meta := row["paneteam"].(map[string]any)
				meta["pid"], meta["pidStart"] = pid, startOf(pid)
			}
		}},
		{"record", "is not where paneteam keeps its record", func(s *spTeam, pid int) func(map[string]any) {
			// A record as the host could write it into tasks/<team>,
			// naming the person's process as the teammate's command.
			rec := filepath.Join(s.root, "tasks", s.name, "panes", "bob.json")
			os.MkdirAll(filepath.Dir(rec), 0o700)
			b, _ := json.Marshal(map[string]any{"hostPid": pid, "hostStart": startOf(pid), "childPid": pid, "childStart": startOf(pid), "argv": []string{"x"}})
			os.WriteFile(rec, b, 0o600)
			return func(row map[string]any) {
				meta := row["paneteam"].(map[string]any)
				meta["pid"], meta["pidStart"], meta["hostState"] = pid, startOf(pid), rec
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spInside(t)
			s.mustRun("spawn-pane", "--team", s.name, "--name", "bob", "--backend", "in-process", "--", "sleep", "600")
			// bob's own host and command, ended by the test itself.
			var real struct{ HostPID, ChildPID int }
			b, _ := os.ReadFile(filepath.Join(s.root, "teams", s.name, "panes", "bob.json"))
			if err := json.Unmarshal(b, &real); err != nil || real.HostPID == 0 {
				t.Fatalf("bob's record: %v %s", err, b)
			}
			t.Cleanup(func() { syscall.Kill(real.HostPID, syscall.SIGKILL); syscall.Kill(real.ChildPID, syscall.SIGKILL) })
			own := exec.Command("sleep", "600")
			if err := own.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { own.Wait(); close(done) }()
			t.Cleanup(func() { own.Process.Kill(); <-done })
			s.forge(t, "bob", tc.forge(s, own.Process.Pid))

			out, errOut, _ := s.run("kill-pane", "--team", s.name, "--name", "bob")
			select {
			case <-done:
				t.Fatalf("the person's process %d was ended through a forged config.json: %q %q", own.Process.Pid, out, errOut)
			case <-time.After(300 * time.Millisecond):
			}
			if !strings.Contains(out+errOut, tc.want) {
				t.Errorf("kill-pane did not say why: want %q in %q %q", tc.want, out, errOut)
			}
		})
	}
}

func startOf(pid int) string {
	s, _ := proc.StartTime(pid)
	return s
}
