package golden

import (
	"strings"
	"testing"
)

// The masks hide what varies between runs and nothing more: a value the
// test planted, or a number that only looks like a pid, stays visible.
func TestNormaliserMasksOnlyWhatVaries(t *testing.T) {
	n := newNormaliser("/tmp/TestX123/001", "/tmp/paneteam-test-bin-abc")
	n.pid(4242, "<LEAD_PID>")
	n.planted("2026-01-01T00:00:00.000Z")
	for _, c := range []struct{ in, want string }{
		{`"path": "/tmp/TestX123/001/root/teams"`, `"path": "<TMP>/root/teams"`},
		{`"timestamp": "2026-11-27T03:44:03.506Z"`, `"timestamp": "<TIME>"`},
		{`"time": "2026-11-27T03:44:49.112397302Z"`, `"time": "<TIME>"`},
		{`[paneteam] 2026-11-27T03:44:27Z: started`, `[paneteam] <TIME>: started`},
		{`"timestamp": "2026-01-01T00:00:00.000Z"`, `"timestamp": "2026-01-01T00:00:00.000Z"`},
		{`"requestId": "shutdown-1795751043628@bob"`, `"requestId": "shutdown-<EPOCH_MS>@bob"`},
		{`"msg_id": "6d4124cb-97a7-4e45-8a31-b196629b733c"`, `"msg_id": "<UUID>"`},
		{`"age_seconds": 28525483`, `"age_seconds": <AGE_SECONDS>`},
		{`"pane_id": "%12"`, `"pane_id": "<PANE_ID>"`},
		{`"why": "lead process 4242 is running"`, `"why": "lead process <LEAD_PID> is running"`},
		{`"pid": 4242`, `"pid": <LEAD_PID>`},
		{`"timeout": 4242`, `"timeout": 4242`},
		{`"pid": 42420`, `"pid": 42420`},
		{`"task": "3"`, `"task": "3"`},
	} {
		if got := n.apply(c.in); got != c.want {
			t.Errorf("apply(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// A failing comparison shows the changed lines, the golden one first.
func TestLineDiffShowsTheChange(t *testing.T) {
	want := "{\n  \"a\": 1,\n  \"released_tasks\": [],\n  \"z\": 2\n}\n"
	got := strings.Replace(want, "released_tasks", "releasedTasks", 1)
	d := lineDiff(want, got)
	if !strings.Contains(d, " -   \"released_tasks\": [],\n +   \"releasedTasks\": [],\n") {
		t.Errorf("diff does not show the renamed field, golden first:\n%s", d)
	}
	if lineDiff(want, want) != "" {
		t.Errorf("equal texts give a diff:\n%s", lineDiff(want, want))
	}
}
