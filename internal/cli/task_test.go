package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// taskTeam creates a team with the given members under a fresh root and
// returns the root and the variables that point paneteam at it.
func taskTeam(t *testing.T, members ...string) (team.Team, map[string]string) {
	t.Helper()
	tm := teamtest.New(t, "work", team.CreateOptions{Cwd: "/src"},
		teamtest.Like(team.Member{TmuxPaneID: team.InProcessPaneID, Cwd: "/src"}, members...)...)
	return tm, map[string]string{"PANETEAM_ROOT": tm.Root, "PANETEAM_TEAM": tm.Name, "HOME": t.TempDir()}
}

// taskRun runs paneteam in this process and returns stdout, stderr and
// the exit code.
func taskRun(t *testing.T, vars map[string]string, args ...string) (string, string, int) {
	t.Helper()
	r := pt(t, vars).Run(t, append([]string{"task"}, args...)...)
	return r.Stdout, r.Stderr, r.Code
}

func mustTask(t *testing.T, vars map[string]string, args ...string) string {
	t.Helper()
	out, errs, code := taskRun(t, vars, args...)
	if code != 0 {
		t.Fatalf("task %v: exit %d: %s", args, code, errs)
	}
	return out
}

func taskFile(t *testing.T, tm team.Team, id string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tm.TasksDir(), id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func assignments(t *testing.T, tm team.Team, member string) []mailbox.TaskAssignment {
	t.Helper()
	msgs, err := mailbox.New(tm.InboxPath(member), lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []mailbox.TaskAssignment
	for _, m := range msgs {
		if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeTaskAssignment {
			out = append(out, *p.Value.(*mailbox.TaskAssignment))
		}
	}
	return out
}

func TestTaskCreateListAndDependencies(t *testing.T) {
	_, vars := taskTeam(t, "alice")
	if out := mustTask(t, vars, "create", "--subject", "Write tests", "--description", "all"); out != "1\n" {
		t.Fatalf("create printed %q, want the id alone", out)
	}
	if out := mustTask(t, vars, "create", "--subject", "Ship <it> & go", "--blocked-by", "1"); out != "2\n" {
		t.Fatalf("create printed %q", out)
	}
	table := mustTask(t, vars, "list")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "BLOCKED BY") ||
		strings.Join(strings.Fields(lines[2]), " ") != "2 pending - Ship <it> & go 1" {
		t.Fatalf("list:\n%s", table)
	}

	var tasks []map[string]any
	if err := json.Unmarshal([]byte(mustTask(t, vars, "list", "--json")), &tasks); err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0]["blocked"] != false || tasks[1]["blocked"] != true ||
		tasks[1]["subject"] != "Ship <it> & go" || fmt.Sprint(tasks[1]["blockedBy"]) != "[1]" {
		t.Fatalf("list --json: %v", tasks)
	}
	if _, has := tasks[0]["owner"]; has {
		t.Fatalf("unclaimed task has an owner key: %v", tasks[0])
	}
	if out := mustTask(t, vars, "list", "--available", "--json"); !strings.Contains(out, `"Write tests"`) || strings.Contains(out, "Ship") {
		t.Fatalf("--available shows a blocked task:\n%s", out)
	}

	// A blocked task cannot be claimed; completing its blocker frees it.
	_, errs, code := taskRun(t, vars, "claim", "--owner", "alice", "2")
	if code != ExitFailure || !strings.Contains(errs, "blocked by unfinished task(s) 1") {
		t.Fatalf("claim of blocked task: exit %d: %s", code, errs)
	}
	mustTask(t, vars, "update", "1", "--status", "completed")
	if out := mustTask(t, vars, "list", "--available"); !strings.Contains(out, "Ship") {
		t.Fatalf("task 2 not available after 1 completed:\n%s", out)
	}
	mustTask(t, vars, "claim", "2", "--owner", "alice")
	if out := mustTask(t, vars, "list", "--owner", "alice", "--status", "in_progress"); !strings.Contains(out, "Ship") {
		t.Fatalf("filters lost alice's task:\n%s", out)
	}
}

func TestTaskUpdateReleaseDeleteAndAssignmentMessages(t *testing.T) {
	tm, vars := taskTeam(t, "alice", "bob")
	mustTask(t, vars, "create", "--subject", "a", "--owner", "alice")
	if got := taskFile(t, tm, "1"); got["owner"] != "alice" || got["status"] != team.StatusInProgress {
		t.Fatalf("create --owner: %v", got)
	}
	if a := assignments(t, tm, "alice"); len(a) != 1 || a[0].TaskID != "1" || a[0].AssignedBy != team.LeadName {
		t.Fatalf("alice's assignments: %+v", a)
	}
	mustTask(t, vars, "update", "1", "--owner", "bob", "--subject", "a2")
	if a := assignments(t, tm, "bob"); len(a) != 1 || a[0].Subject != "a2" {
		t.Fatalf("bob's assignments: %+v", a)
	}
	mustTask(t, vars, "release", "1")
	if got := taskFile(t, tm, "1"); got["status"] != team.StatusPending || got["owner"] != nil {
		t.Fatalf("after release: %v", got)
	}
	mustTask(t, vars, "claim", "1", "--owner", "alice")
	mustTask(t, vars, "update", "1", "--owner", "")
	if got := taskFile(t, tm, "1"); got["status"] != team.StatusPending || got["owner"] != nil {
		t.Fatalf("after --owner \"\": %v", got)
	}
	mustTask(t, vars, "create", "--subject", "b")
	mustTask(t, vars, "update", "1", "--add-blocked-by", "2")
	if got := taskFile(t, tm, "2"); fmt.Sprint(got["blocks"]) != "[1]" {
		t.Fatalf("blocker's blocks: %v", got)
	}
	if _, errs, code := taskRun(t, vars, "update", "2", "--add-blocked-by", "1"); code == 0 || !strings.Contains(errs, "neither could ever start") {
		t.Fatalf("cycle: exit %d: %s", code, errs)
	}
	mustTask(t, vars, "delete", "2")
	if out := mustTask(t, vars, "create", "--subject", "c"); out != "3\n" {
		t.Fatalf("id after deleting 2 is %q, want 3", out)
	}
	if out := mustTask(t, vars, "get", "1"); !strings.Contains(out, "blocked by:  -") {
		t.Fatalf("a deleted blocker still blocks:\n%s", out)
	}
}

func TestTaskRefusesBadInputAndChangesNothing(t *testing.T) {
	tm, vars := taskTeam(t, "alice")
	mustTask(t, vars, "create", "--subject", "a")
	before, _ := os.ReadFile(filepath.Join(tm.TasksDir(), "1.json"))
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"get", "../1"}, ExitUsage, "not a number"},
		{[]string{"delete", "1/.."}, ExitUsage, "digits only"},
		{[]string{"claim", "--owner", "ghost", "1"}, ExitFailure, `"ghost" is not a member of team work`},
		{[]string{"update", "1", "--status", "done"}, ExitUsage, "pending, in_progress, completed"},
		{[]string{"create", "--subject", "x", "--blocked-by", "1,../2"}, ExitUsage, "not a number"},
		{[]string{"create", "--subject", "x", "--blocked-by", "7"}, ExitFailure, "no such task"},
		{[]string{"create"}, ExitUsage, "--subject"},
		{[]string{"get", "9"}, ExitFailure, "no such task"},
		{[]string{"claim", "1"}, ExitUsage, "--owner"},
	}
	for _, c := range cases {
		_, errs, code := taskRun(t, vars, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("task %v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.want)
		}
	}
	after, _ := os.ReadFile(filepath.Join(tm.TasksDir(), "1.json"))
	files, _ := filepath.Glob(filepath.Join(tm.TasksDir(), "*.json"))
	if !bytes.Equal(before, after) || len(files) != 1 {
		t.Fatalf("refused commands changed the list: %v\n%s", files, after)
	}
}

func TestTaskListWarnsAboutMalformedFiles(t *testing.T) {
	tm, vars := taskTeam(t)
	mustTask(t, vars, "create", "--subject", "fine")
	bad := filepath.Join(tm.TasksDir(), "2.json")
	if err := os.WriteFile(bad, []byte(`{"id": "2", "subj`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := taskRun(t, vars, "list")
	if code != 0 || !strings.Contains(out, "fine") || !strings.Contains(errs, "warning: skipped task file "+bad) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(bad); string(b) != `{"id": "2", "subj` {
		t.Fatalf("malformed file was changed: %s", b)
	}
	if out := mustTask(t, vars, "create", "--subject", "next"); out != "3\n" {
		t.Fatalf("new task got id %q next to malformed 2.json, want 3", out)
	}
}

// TestTaskClaimRace starts 20 paneteam processes claiming the same task
// at once: exactly one wins, the others are told who has it.
func TestTaskClaimRace(t *testing.T) {
	const n = 20
	var members []string
	for i := 0; i < n; i++ {
		members = append(members, "w"+strconv.Itoa(i))
	}
	tm, vars := taskTeam(t, members...)
	mustTask(t, vars, "create", "--subject", "only one")
	bin := testutil.Binary(t)
	type result struct {
		member string
		code   int
		stderr string
	}
	procs := make([]*procRun, n)
	for i, m := range members {
		procs[i] = startProc(t, bin, testutil.Env("PANETEAM_ROOT="+vars["PANETEAM_ROOT"]),
			"task", "claim", "--team", tm.Name, "--owner", m, "1")
	}
	var winners []string
	var losers []result
	for i, p := range procs {
		code, stderr := p.wait(t)
		if code == 0 {
			winners = append(winners, members[i])
		} else {
			losers = append(losers, result{members[i], code, stderr})
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d claims won (%v), want exactly 1; losers: %+v", len(winners), winners, losers)
	}
	w := winners[0]
	for _, l := range losers {
		if l.code != ExitFailure || !strings.Contains(l.stderr, "task 1 is already claimed by "+w) {
			t.Errorf("%s: exit %d, stderr %q; want a refusal naming %s", l.member, l.code, l.stderr, w)
		}
	}
	if got := taskFile(t, tm, "1"); got["owner"] != w || got["status"] != team.StatusInProgress {
		t.Fatalf("task after the race: %v, want owner %s", got, w)
	}
	for _, m := range members {
		a := assignments(t, tm, m)
		if (m == w) != (len(a) == 1) || len(a) > 1 {
			t.Errorf("%s got %d task_assignment messages (winner %s)", m, len(a), w)
		}
	}
}
