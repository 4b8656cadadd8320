package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
)

// TestClaudeWarnsOnlyAboveTheTestedRelease: 'paneteam claude' says once
// that Claude Code is newer than the newest release its tests ran, and
// says nothing for the tested release (2.1.332, the current one) or the
// one pinned before it.
func TestClaudeWarnsOnlyAboveTheTestedRelease(t *testing.T) {
	next := claudeversion.Tested
	next.Patch++
	for _, c := range []struct {
		release string
		warns   bool
	}{{"2.1.332", false}, {"2.1.330", false}, {next.String(), true}} {
		bin := t.TempDir()
		script := "#!/bin/sh\n[ \"$1\" = --version ] && echo '" + c.release + " (Claude Code)'\nexit 0\n"
		if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		vars := map[string]string{"PATH": bin + ":/usr/bin:/bin", "HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(),
			"PANETEAM_STATE_DIR": t.TempDir()}
		for run := 1; run <= 2; run++ {
			_, errs, code := ptRun(t, vars, "", "claude", "--dry-run", "--json")
			if code != 0 {
				t.Fatalf("claude %s: exit %d\n%s", c.release, code, errs)
			}
			warned := strings.Contains(errs, "is newer than "+claudeversion.Tested.String())
			if want := c.warns && run == 1; warned != want {
				t.Errorf("Claude Code %s, start %d: warned %v, want %v\n%s", c.release, run, warned, want, errs)
			}
		}
	}
}
