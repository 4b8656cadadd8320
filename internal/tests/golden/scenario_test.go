package golden

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// The requests planted in the lead's inbox, as a teammate's Claude Code
// writes them (docs/PROTOCOL.md §9), with fixed ids and times.
const (
	permAlice = `{"type":"permission_request","request_id":"perm-golden-1","agent_id":"alice","tool_name":"Bash","tool_use_id":"toolu_01","description":"Run tests","input":{"timeout":120000,"description":"Run tests","command":"npm test"},"permission_suggestions":[]}`
	permBob   = `{"type":"permission_request","request_id":"perm-golden-2","agent_id":"bob","tool_name":"Bash","tool_use_id":"toolu_02","description":"Clean","input":{"command":"rm -rf build"},"permission_suggestions":[]}`
	planBob   = `{"type":"plan_approval_request","from":"bob","timestamp":"2026-01-01T00:00:02.000Z","planFilePath":"/p.md","planContent":"1. do it\n2. check it","requestId":"plan-golden-1"}`
)

var plantedTimes = []string{"2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:02.000Z"}

// TestTeamCommandsJSON walks one team through its life, from team-create
// to cleanup, and pins the --json output of every step. Teammates run
// in-process (no tmux needed) and are plain shells that never read their
// inbox, so every inbox holds exactly what the test sent.
func TestTeamCommandsJSON(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	// The teammates' programs and nothing else: no tmux, no it2, no agent
	// CLI of the machine can change a choice paneteam prints.
	for _, n := range []string{"sh", "sleep"} {
		p := testutil.RequireTool(t, n)
		if err := os.Symlink(p, filepath.Join(bin, n)); err != nil {
			t.Fatal(err)
		}
	}
	s := newSession(t, tmp, bin)
	for _, ts := range plantedTimes {
		s.norm.planted(ts)
	}
	lead := os.Getpid() // alive for the whole test
	s.norm.pid(lead, "<LEAD_PID>")
	gone := startProcess(t)
	s.norm.pid(gone.Process.Pid, "<GONE_LEAD_PID>")
	t.Cleanup(func() {
		// Ends the in-process hosts if the test stopped before cleanup.
		s.run("", "cleanup", "--team", "crew", "--force")
	})

	s.golden("team-create", 0, "team-create", "--json", "--description", "golden crew", "--leader-pid", strconv.Itoa(lead), "crew")
	s.golden("team-create-name-taken", 0, "team-create", "--json", "--leader-pid", strconv.Itoa(gone.Process.Pid), "Crew")
	// crew-2's lead ends at once: cleanup --orphans reaps the team.
	gone.Process.Kill()
	gone.Wait()

	sh := func(name string) []string {
		return []string{"--", "sh", "-c", "echo " + name + "-ready; exec sleep 1000"}
	}
	s.golden("spawn-pane-in-process", 0, append([]string{"spawn-pane", "--json", "--team", "crew", "--name", "alice", "--backend", "in-process"}, sh("alice")...)...)
	// The test answers for bob (see shutdown), as his Claude Code would.
	s.must(append([]string{"spawn-pane", "--team", "crew", "--name", "bob", "--backend", "in-process", "--answers-shutdown"}, sh("bob")...)...)
	s.must(append([]string{"spawn-pane", "--team", "crew", "--name", "carol", "--backend", "in-process"}, sh("carol")...)...)

	sends(s)
	inboxes(s)
	tasks(s)
	requests(s)

	s.golden("status-team", 0, "status", "--json", "--team", "crew")
	s.golden("status-all", 0, "status", "--json")
	// bob is idle from his latest idle notification until a message comes
	// or goes: the requests and answers above made him busy again.
	s.must("send", "--team", "crew", "--from", "bob", "--to", "team-lead", "--type", "idle_notification")
	s.golden("wait-idle", 0, "wait", "--json", "--team", "crew", "--name", "bob", "--until", "idle", "--timeout", "10s")
	s.golden("wait-timeout", 1, "wait", "--json", "--team", "crew", "--all", "--until", "idle", "--timeout", "300ms")

	log := filepath.Join(s.root(), "teams", "crew", "panes", "alice.log")
	testutil.Eventually(t, 10*time.Second, "alice's shell never printed alice-ready to its log", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "alice-ready\r\n")
	})
	s.golden("logs", 0, "logs", "--json", "--team", "crew", "--name", "alice")

	// carol holds task 3, which kill-pane puts back.
	s.golden("kill-pane", 0, "kill-pane", "--json", "--team", "crew", "--name", "carol")
	shutdown(s)
	// dave runs a plain program, which cannot answer: ended, not asked.
	s.must(append([]string{"spawn-pane", "--team", "crew", "--name", "dave", "--backend", "in-process"}, sh("dave")...)...)
	s.golden("shutdown-ended", 0, "shutdown", "--json", "--team", "crew", "--timeout", "1m", "dave")
	monitor(s)

	s.golden("cleanup-orphans-dry-run", 0, "cleanup", "--json", "--orphans", "--dry-run")
	s.golden("cleanup-orphans", 0, "cleanup", "--json", "--orphans")
	s.golden("cleanup-team-dry-run", 0, "cleanup", "--json", "--team", "crew", "--force", "--dry-run")
	s.golden("cleanup-team", 0, "cleanup", "--json", "--team", "crew", "--force")
}

// startProcess starts a process to stand for a lead: team-create wants
// a running one, and the test ends it (by its pid) to make the lead gone.
func startProcess(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testutil.RequireTool(t, "sleep"), "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

func sends(s *session) {
	s.golden("send-one", 0, "send", "--json", "--team", "crew", "--to", "alice", "hello alice")
	// --to given twice: both members get the message, each once.
	s.golden("send-to-twice", 0, "send", "--json", "--team", "crew", "--to", "alice", "--to", "bob", "hello both")
	s.golden("send-broadcast", 0, "send", "--json", "--team", "crew", "--broadcast", "all hands")
	s.golden("send-from-teammate", 0, "send", "--json", "--team", "crew", "--from", "alice", "--to", "team-lead", "--summary", "report", "report from alice")
	s.golden("send-shutdown-request", 0, "send", "--json", "--team", "crew", "--to", "carol", "--type", "shutdown_request", "--reason", "done")
	s.golden("send-idle-notification", 0, "send", "--json", "--team", "crew", "--from", "bob", "--to", "team-lead", "--type", "idle_notification")
	s.golden("send-task-assignment", 0, "send", "--json", "--team", "crew", "--to", "alice", "--type", "task_assignment", "--task-id", "9", "--subject", "Look around")
	s.golden("send-plan-approval-response", 0, "send", "--json", "--team", "crew", "--to", "bob", "--type", "plan_approval_response", "--request-id", "plan-x", "--reject", "--feedback", "smaller steps")
	s.goldenInput("send-lines", 0, "one\n\ntwo\n", "send", "--json", "--team", "crew", "--from", "alice", "--to", "team-lead", "--lines")
}

func inboxes(s *session) {
	s.golden("inbox-lead", 0, "inbox", "--json", "--team", "crew")
	s.golden("inbox-unread-last", 0, "inbox", "--json", "--team", "crew", "--name", "alice", "--unread", "--last", "2")
	s.golden("inbox-mark-read", 0, "inbox", "--json", "--team", "crew", "--name", "alice", "--mark-read")
	s.golden("inbox-unread-none", 0, "inbox", "--json", "--team", "crew", "--name", "alice", "--unread")
	// Read messages move to the archive on paneteam's next write.
	s.must("send", "--team", "crew", "--to", "alice", "after reading")
	s.golden("inbox-archived", 0, "inbox", "--json", "--team", "crew", "--name", "alice", "--archived")
	s.golden("inbox-watch-once", 0, "inbox-watch", "--json", "--team", "crew", "--name", "alice", "--once", "--mark-read")
}

func tasks(s *session) {
	task := func(name string, want int, args ...string) {
		s.t.Helper()
		s.golden(name, want, append(append([]string{"task"}, args...), "--json", "--team", "crew")...)
	}
	task("task-create", 0, "create", "Write the tests", "--description", "all of them", "--active-form", "Writing tests")
	task("task-create-owned", 0, "create", "--subject", "Review", "--blocked-by", "1", "--owner", "bob")
	task("task-create-plain", 0, "create", "Document")
	task("task-list", 0, "list")
	task("task-list-available", 0, "list", "--available")
	task("task-list-owner", 0, "list", "--owner", "bob")
	task("task-get", 0, "get", "1")
	task("task-claim", 0, "claim", "1", "--owner", "alice")
	s.must("task", "claim", "3", "--owner", "carol", "--team", "crew")
	task("task-update-note", 0, "update", "1", "--status", "in_progress", "--note", "halfway")
	task("task-update-completed", 0, "update", "1", "--status", "completed")
	task("task-release", 0, "release", "2")
	task("task-delete", 0, "delete", "2")
}

func requests(s *session) {
	in := mailbox.New(team.Team{Root: s.root(), Name: "crew"}.InboxPath(team.LeadName), lockfile.Options{})
	err := in.Append(context.Background(),
		mailbox.Message{From: "alice", Text: permAlice, Timestamp: plantedTimes[0]},
		mailbox.Message{From: "bob", Text: permBob, Timestamp: plantedTimes[1]},
		mailbox.Message{From: "bob", Text: planBob, Timestamp: plantedTimes[2]},
	)
	if err != nil {
		s.t.Fatal(err)
	}
	s.golden("requests", 0, "requests", "--json", "--team", "crew")
	s.golden("show-permission", 0, "show", "--json", "--team", "crew", "perm-golden-1")
	s.golden("show-plan-by-prefix", 0, "show", "--json", "--team", "crew", "plan-golden")
	s.golden("approve-permission", 0, "approve", "--json", "--team", "crew", "perm-golden-1")
	s.golden("deny-permission", 0, "deny", "--json", "--team", "crew", "perm-golden-2", "--feedback", "not now")
	s.golden("approve-plan", 0, "approve", "--json", "--team", "crew", "plan-golden-1", "--mode", "acceptEdits")
	s.golden("requests-none", 0, "requests", "--json", "--team", "crew")
	s.golden("show-answered", 0, "show", "--json", "--team", "crew", "perm-golden-1")
}

var shutdownID = regexp.MustCompile(`shutdown-\d+@bob`)

// shutdown asks bob to stop and answers for him, as his Claude Code
// would: a plain shell does not read its inbox (spawn-pane was told
// --answers-shutdown, so bob is asked).
func shutdown(s *session) {
	cmd := exec.Command(s.bin, "shutdown", "--json", "--team", "crew", "--timeout", "20s", "bob")
	cmd.Dir, cmd.Env = s.dir, s.vars
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	inbox := team.Team{Root: s.root(), Name: "crew"}.InboxPath("bob")
	var id string
	testutil.Eventually(s.t, 10*time.Second, "shutdown never wrote a shutdown_request to bob's inbox", func() bool {
		b, _ := os.ReadFile(inbox)
		id = shutdownID.FindString(string(b))
		return id != ""
	})
	s.must("send", "--team", "crew", "--from", "bob", "--to", "team-lead", "--type", "shutdown_approved", "--request-id", id)
	err := cmd.Wait()
	if err != nil {
		s.t.Fatalf("shutdown: %v\n%s%s", err, out.String(), errb.String())
	}
	s.check("shutdown", "paneteam shutdown bob", out.String())
}

// monitor follows the team while three things happen, one at a time
// (each event printed before the next action, so the order is fixed),
// then stops it with Ctrl-C's signal.
func monitor(s *session) {
	cmd := exec.Command(s.bin, "monitor", "--json", "--team", "crew")
	cmd.Dir, cmd.Env = s.dir, s.vars
	var out, errb testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped { // the test failed before SIGINT: end it by its pid
			cmd.Process.Kill()
			<-done
		}
	}()
	testutil.Eventually(s.t, 10*time.Second, "monitor never said it was watching", func() bool {
		return strings.Contains(errb.String(), "watching team crew")
	})
	lines := func(n int, what string) {
		s.t.Helper()
		testutil.Eventually(s.t, 10*time.Second, "monitor never printed "+what, func() bool {
			return strings.Count(out.String(), "\n") >= n
		})
	}
	s.must("send", "--team", "crew", "--to", "alice", "watched")
	lines(1, "the message")
	s.must("task", "create", "Watch", "--team", "crew")
	lines(2, "the new task")
	s.must("send", "--team", "crew", "--from", "alice", "--to", "team-lead", "--type", "idle_notification")
	lines(4, "the idle notification and alice's idle state")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		s.t.Fatal(err)
	}
	err := <-done
	stopped = true
	if err != nil {
		s.t.Fatalf("monitor after SIGINT: %v\n%s", err, errb.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !json.Valid([]byte(l)) {
			s.t.Errorf("monitor printed a line that is not JSON: %q", l)
		}
	}
	s.check("monitor", "paneteam monitor", out.String())
}
