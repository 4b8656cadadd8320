package cli

import (
	"testing"

	"github.com/paneteam/paneteam/team"
)

func TestSpawnPaneUsageErrors(t *testing.T) {
	_, vars := ptRootVars(t)
	if _, errOut, code := ptRun(t, vars, "", "team-create", "u"); code != 0 {
		t.Fatal(errOut)
	}
	tests := [][]string{
		{"spawn-pane", "--team", "u", "--name", "a"},                                // no command
		{"spawn-pane", "--team", "u", "--", "sleep", "1"},                           // no name
		{"spawn-pane", "--team", "u", "--name", "a", "--color", "mauve", "--", "x"}, // not a team colour
		{"spawn-pane", "--team", "u", "--name", "a", "--layout", "even", "--", "x"},
		{"spawn-pane", "--team", "u", "--name", "a", "--lead-percent", "95", "--", "x"},
		{"spawn-pane", "--team", "u", "--name", "a", "--permission-mode", "yolo", "--", "x"},
		{"spawn-pane", "--team", "u", "--name", "a", "--cwd", "/no/such/dir", "--", "x"},
	}
	for _, args := range tests {
		_, errOut, code := ptRun(t, vars, "", args...)
		if code != ExitUsage || errOut == "" {
			t.Errorf("%v: exit %d (want %d), stderr %q", args, code, ExitUsage, errOut)
		}
	}
	_, cfg, err := team.Open(vars["PANETEAM_ROOT"], "u")
	if err != nil || len(cfg.Members) != 1 {
		t.Errorf("usage errors changed the team: %v %v", cfg.MemberNames(), err)
	}
}
