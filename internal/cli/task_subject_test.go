package cli

import (
	"strings"
	"testing"
)

// task create takes the subject as its argument, as people type it first;
// --subject still works, and two subjects are refused with the fix.
func TestTaskCreateTakesTheSubjectAsArgument(t *testing.T) {
	tm, vars := taskTeam(t)
	if out := mustTask(t, vars, "create", "Write parser tests", "--description", "all of them"); out != "1\n" {
		t.Fatalf("create printed %q, want the id alone", out)
	}
	if got := taskFile(t, tm, "1"); got["subject"] != "Write parser tests" || got["description"] != "all of them" {
		t.Errorf("task 1 is %v, want the argument as its subject", got)
	}
	if out := mustTask(t, vars, "create", "--subject", "Ship it"); out != "2\n" {
		t.Fatalf("create --subject printed %q", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "Write", "tests"}, `quote it, such as task create "Write parser tests"`},
		{[]string{"create", "One", "--subject", "Two"}, "give one"},
		{[]string{"create"}, "needs a subject"},
	} {
		_, errs, code := taskRun(t, vars, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("task %s: exit %d, %q; want a usage error saying %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
	if out := mustTask(t, vars, "list"); strings.Count(out, "\n") != 3 {
		t.Errorf("the refused creates added tasks:\n%s", out)
	}
}
