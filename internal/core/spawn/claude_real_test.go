package spawn

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// TestRealReleasesAcceptTheirCommandLine runs real Claude Code releases
// with the teammate flags paneteam builds for them (print mode, against a
// local API that refuses at once): each must get as far as its first API
// call, not stop at an unknown option. 2.1.88 predates --lead-verify-key:
// given the tested release's flags it refuses them, which is why the
// command line follows the release.
func TestRealReleasesAcceptTheirCommandLine(t *testing.T) {
	testutil.RequireTool(t, "node")
	api := testutil.RefusingAPI(t)
	home := t.TempDir()
	yes := true
	cfg := &team.Config{Name: "crew", LeadSessionID: "6f9c1d2e-8a7b-4c3d-9e0f-112233445566"}
	m := team.Member{AgentID: "alice@crew", Name: "alice", Color: "blue", AgentType: "general-purpose", Model: "sonnet", PlanModeRequired: &yes}
	run := func(bin string, flags []string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"-p", "hello"}, flags...)...)
		cmd.Env = testutil.Env("HOME="+home, "CLAUDE_CONFIG_DIR="+home+"/.claude", "ANTHROPIC_API_KEY=sk-ant-test-0000000000000000000000",
			"ANTHROPIC_BASE_URL="+api, "HTTPS_PROXY="+api, "HTTP_PROXY="+api, "NO_PROXY=127.0.0.1,localhost",
			"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"IS_SANDBOX=1") // as root, the bypass flag needs it (docs/PROTOCOL.md §17)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	flagsFor := func(v claudeversion.Version, perm string) []string {
		return claudeFlags(cfg, m, perm, claudeLaunch{version: v, key: testKey(t), backend: team.BackendTmux})
	}
	for _, rel := range []string{claudeversion.Tested.String(), "2.1.88"} {
		bin := testutil.ClaudeReleaseBin(t, rel)
		v, err := claudeversion.Detector{}.Detect(context.Background(), bin)
		if err != nil {
			t.Fatal(err)
		}
		for _, perm := range mailbox.PermissionModes {
			flags := flagsFor(v, perm)
			out := run(bin, flags)
			if !strings.Contains(out, "API Error: 400") {
				t.Errorf("Claude Code %s refused %v:\n%s", rel, flags, out)
			}
			m.PlanModeRequired = nil // plan required once, then each mode alone
		}
		m.PlanModeRequired = &yes
	}
	old := testutil.ClaudeReleaseBin(t, "2.1.88")
	if out := run(old, flagsFor(claudeversion.Tested, "default")); !strings.Contains(out, "unknown option '--lead-verify-key'") {
		t.Errorf("2.1.88 given the tested release's flags: %s", out)
	}
}
