package tasks_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/tasks"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// board is the task list of a team of alice and bob, as by acts on it.
func board(t *testing.T, by string) *tasks.Board {
	t.Helper()
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob")...)
	cfg := teamtest.Load(t, tm)
	return &tasks.Board{Team: tm, Config: cfg, By: by,
		Caller: post.Caller{Getenv: func(string) string { return "" }},
		Now:    func() time.Time { return time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC) }}
}

func str(s string) *string { return &s }

// notices are the task_assignment frames in name's inbox, as "from:taskId".
func notices(t *testing.T, b *tasks.Board, name string) []string {
	t.Helper()
	msgs, err := mailbox.New(b.Team.InboxPath(name), lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		p, ok := mailbox.Parse(m.Text)
		if !ok || p.Type != mailbox.TypeTaskAssignment {
			continue
		}
		ta := p.Value.(*mailbox.TaskAssignment)
		if ta.AssignedBy != m.From {
			t.Errorf("task_assignment from %s says assignedBy %s", m.From, ta.AssignedBy)
		}
		out = append(out, m.From+":"+ta.TaskID)
	}
	return out
}

// The update rule, case by case: who becomes the owner, what status
// follows, and who is told.
func TestUpdateFollowsClaudeCodesRules(t *testing.T) {
	cases := []struct {
		name       string
		by         string
		owner      string // the task's owner before
		status     string // and its status
		change     tasks.Change
		wantOwner  string
		wantStatus string
		wantNotice map[string][]string // inbox -> notices
	}{
		{name: "a teammate starting an unowned task owns it and is told", by: "alice",
			status: team.StatusPending, change: tasks.Change{Status: str(team.StatusInProgress)},
			wantOwner: "alice", wantStatus: team.StatusInProgress, wantNotice: map[string][]string{"alice": {"alice:1"}}},
		{name: "the lead starting an unowned task does not own it", by: team.LeadName,
			status: team.StatusPending, change: tasks.Change{Status: str(team.StatusInProgress)},
			wantOwner: "", wantStatus: team.StatusInProgress},
		{name: "a teammate starting another's task leaves the owner", by: "alice", owner: "bob",
			status: team.StatusPending, change: tasks.Change{Status: str(team.StatusInProgress)},
			wantOwner: "bob", wantStatus: team.StatusInProgress},
		{name: "an explicit owner wins over the starter", by: "alice",
			status: team.StatusPending, change: tasks.Change{Status: str(team.StatusInProgress), Owner: str("bob")},
			wantOwner: "bob", wantStatus: team.StatusInProgress, wantNotice: map[string][]string{"bob": {"alice:1"}}},
		{name: "the lead assigning tells the new owner", by: team.LeadName,
			status: team.StatusPending, change: tasks.Change{Owner: str("bob")},
			wantOwner: "bob", wantStatus: team.StatusPending, wantNotice: map[string][]string{"bob": {"team-lead:1"}}},
		{name: "assigning a teammate itself tells it too", by: "bob",
			status: team.StatusPending, change: tasks.Change{Owner: str("bob")},
			wantOwner: "bob", wantStatus: team.StatusPending, wantNotice: map[string][]string{"bob": {"bob:1"}}},
		{name: "the same owner again is no change and no notice", by: team.LeadName, owner: "bob",
			status: team.StatusInProgress, change: tasks.Change{Owner: str("bob@crew")},
			wantOwner: "bob", wantStatus: team.StatusInProgress},
		{name: "setting pending keeps the owner", by: "bob", owner: "bob",
			status: team.StatusInProgress, change: tasks.Change{Status: str(team.StatusPending)},
			wantOwner: "bob", wantStatus: team.StatusPending},
		{name: "unassigning a task in progress gives it back", by: team.LeadName, owner: "bob",
			status: team.StatusInProgress, change: tasks.Change{Owner: str("")},
			wantOwner: "", wantStatus: team.StatusPending},
		{name: "unassigning with a status keeps that status", by: team.LeadName, owner: "bob",
			status: team.StatusInProgress, change: tasks.Change{Owner: str(""), Status: str(team.StatusInProgress)},
			wantOwner: "", wantStatus: team.StatusInProgress},
		{name: "completing another's task is allowed and tells nobody", by: "alice", owner: "bob",
			status: team.StatusInProgress, change: tasks.Change{Status: str(team.StatusCompleted)},
			wantOwner: "bob", wantStatus: team.StatusCompleted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := board(t, c.by)
			ctx := context.Background()
			if _, err := b.List().Create(ctx, team.NewTask{Subject: "write the parser", Owner: c.owner}); err != nil {
				t.Fatal(err)
			}
			if _, err := b.List().Update(ctx, "1", func(tk *team.Task) error { tk.Status = c.status; return nil }); err != nil {
				t.Fatal(err)
			}
			got, err := b.Update(ctx, "1", c.change)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			onDisk, err := b.List().Get("1")
			if err != nil {
				t.Fatal(err)
			}
			for _, tk := range []*team.Task{got, onDisk} {
				if tk.Owner != c.wantOwner || tk.Status != c.wantStatus {
					t.Errorf("task: owner %q status %s, want owner %q status %s", tk.Owner, tk.Status, c.wantOwner, c.wantStatus)
				}
			}
			for _, name := range []string{"alice", "bob", team.LeadName} {
				if got, want := notices(t, b, name), c.wantNotice[name]; strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s's notices: %q, want %q", name, got, want)
				}
			}
		})
	}
}

// Claiming tells a new owner, not one that already had the task.
func TestClaimTellsOnlyANewOwner(t *testing.T) {
	b := board(t, team.LeadName)
	ctx := context.Background()
	b.List().Create(ctx, team.NewTask{Subject: "one"})
	if _, err := b.Claim(ctx, "1", "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "1", "alice@crew"); err != nil {
		t.Fatalf("claiming one's own task again: %v", err)
	}
	if got := notices(t, b, "alice"); strings.Join(got, ",") != "team-lead:1" {
		t.Errorf("alice's notices: %q, want one from team-lead", got)
	}
	var ce *team.ClaimError
	if _, err := b.Claim(ctx, "1", "bob"); !errors.As(err, &ce) || ce.Owner != "alice" {
		t.Errorf("bob claiming alice's task: %v, want a ClaimError naming alice", err)
	}
	if _, err := b.Claim(ctx, "1", "carol"); err == nil || !strings.Contains(err.Error(), `"carol" is not a member of team crew`) {
		t.Errorf("claim for a stranger: %v", err)
	}
}

// A note is kept in metadata beside what else is there, byte for byte.
func TestNoteKeepsTheRestOfTheMetadata(t *testing.T) {
	b := board(t, "alice")
	ctx := context.Background()
	b.List().Create(ctx, team.NewTask{Subject: "one", Metadata: []byte(`{"z":1,"a":{"b":[1,2]}}`)})
	if _, err := b.Update(ctx, "1", tasks.Change{Note: str("half done")}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(b.Team.TasksDir(), "1.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := "\"metadata\": {\n    \"z\": 1,\n    \"a\": {\n      \"b\": [\n        1,\n        2\n      ]\n    },\n    \"note\": \"half done\"\n  }"
	if !strings.Contains(string(raw), want) {
		t.Errorf("task file:\n%s\nwant metadata\n%s", raw, want)
	}
}

// What no task may hold is refused before any file changes.
func TestUpdateRefusesBadChanges(t *testing.T) {
	b := board(t, "alice")
	ctx := context.Background()
	b.List().Create(ctx, team.NewTask{Subject: "one"})
	before, _ := os.ReadFile(filepath.Join(b.Team.TasksDir(), "1.json"))
	for _, c := range []struct {
		change tasks.Change
		want   string
	}{
		{tasks.Change{}, "nothing to change"},
		{tasks.Change{Status: str("done")}, `"done" is not a task status`},
		{tasks.Change{Subject: str("  ")}, "subject is empty"},
		{tasks.Change{Owner: str("mallory")}, `"mallory" is not a member`},
		{tasks.Change{AddBlockedBy: []string{"1"}}, "cannot wait for task 1"},
	} {
		if _, err := b.Update(ctx, "1", c.change); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Update(%+v): %v, want %q", c.change, err, c.want)
		}
	}
	after, _ := os.ReadFile(filepath.Join(b.Team.TasksDir(), "1.json"))
	if string(before) != string(after) {
		t.Errorf("a refused update changed the file:\n%s\n->\n%s", before, after)
	}
}
