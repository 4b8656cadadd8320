package team

import (
	"reflect"
	"strings"
	"testing"
)

func TestDependencyEvaluation(t *testing.T) {
	byID := ByID([]*Task{
		{ID: "1", Status: StatusCompleted},
		{ID: "2", Status: StatusPending},
		{ID: "3", Status: StatusInProgress, Owner: "bob"},
	})
	cases := []struct {
		name      string
		task      Task
		open      []string
		available bool
	}{
		{"no blockers", Task{Status: StatusPending}, nil, true},
		{"completed blocker", Task{Status: StatusPending, BlockedBy: []string{"1"}}, nil, true},
		{"pending blocker", Task{Status: StatusPending, BlockedBy: []string{"2"}}, []string{"2"}, false},
		{"in-progress blocker", Task{Status: StatusPending, BlockedBy: []string{"3"}}, []string{"3"}, false},
		{"one of two still open", Task{Status: StatusPending, BlockedBy: []string{"1", "2"}}, []string{"2"}, false},
		{"deleted blocker does not block", Task{Status: StatusPending, BlockedBy: []string{"9"}}, nil, true},
		{"owned is not available", Task{Status: StatusPending, Owner: "bob"}, nil, false},
		{"in progress is not available", Task{Status: StatusInProgress}, nil, false},
		{"completed is not available", Task{Status: StatusCompleted}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OpenBlockers(&c.task, byID); !reflect.DeepEqual(got, c.open) {
				t.Errorf("OpenBlockers = %v, want %v", got, c.open)
			}
			if got := Available(&c.task, byID); got != c.available {
				t.Errorf("Available = %v, want %v", got, c.available)
			}
		})
	}
}

func TestCheckTaskID(t *testing.T) {
	for _, ok := range []string{"1", "42", "007"} {
		if err := CheckTaskID(ok); err != nil {
			t.Errorf("CheckTaskID(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "..", "../1", "1/2", "a", "-1", "1.json", " 1"} {
		err := CheckTaskID(bad)
		if err == nil {
			t.Errorf("CheckTaskID(%q) accepted it", bad)
			continue
		}
		if !strings.Contains(err.Error(), "task id") {
			t.Errorf("CheckTaskID(%q) message does not name the problem: %v", bad, err)
		}
	}
}

func TestParseTaskRejectsWhatClaudeRejects(t *testing.T) {
	cases := map[string]string{
		"not json":      `{"id": "1",`,
		"wrong status":  `{"id":"1","subject":"s","description":"","status":"done","blocks":[],"blockedBy":[]}`,
		"id mismatch":   `{"id":"2","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[]}`,
		"array":         `[]`,
		"blocks string": `{"id":"1","subject":"s","description":"","status":"pending","blocks":"2","blockedBy":[]}`,
	}
	for name, text := range cases {
		if _, err := parseTask([]byte(text), "1"); err == nil {
			t.Errorf("%s: parsed %s", name, text)
		}
	}
}

func TestTaskKeepsUnknownFieldsAndOrder(t *testing.T) {
	in := `{
  "id": "4",
  "subject": "s",
  "description": "d",
  "x-tool": {
    "a": [
      1,
      2
    ]
  },
  "status": "pending",
  "blocks": [],
  "blockedBy": [],
  "metadata": {
    "_internal": true
  }
}`
	task, err := parseTask([]byte(in), "4")
	if err != nil {
		t.Fatal(err)
	}
	if !task.Internal() {
		t.Error("metadata._internal not seen")
	}
	task.Owner, task.Status = "alice", StatusInProgress
	out, err := task.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// Known keys keep their place, the unknown one too; owner is new and
	// goes last, as Claude Code's {...existing, owner} puts it.
	want := strings.Replace(in, `"status": "pending"`, `"status": "in_progress"`, 1)
	want = strings.TrimSuffix(want, "\n}") + ",\n  \"owner\": \"alice\"\n}"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	task.Owner = ""
	out, _ = task.Encode()
	if strings.Contains(string(out), "owner") {
		t.Fatalf("unassigned task still has an owner key:\n%s", out)
	}
}
