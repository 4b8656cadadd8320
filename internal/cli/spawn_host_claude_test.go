package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
)

// A real Claude Code teammate on the second host, started by spawn-pane
// --host --claude from a lead paneteam runs: it logs in with the host's
// own key (set by the host's sshd, as a login would), finds the team in
// the host's config folder, reads its prompt there, and its SendMessage
// reaches the lead's inbox on this machine. kill-pane then ends it and
// unmounts.
func TestClaudeTeammateOnAnotherHost(t *testing.T) {
	testutil.RequireTool(t, "sshfs")
	testutil.RequireTool(t, "npm")
	api := claudetest.NewAPI(t)
	bin := claudetest.Binary(t)
	share := filepath.Dir(bin)
	if dir, err := testutil.ClaudeCacheDir(claudetest.Version()); err == nil && strings.HasPrefix(bin, dir+"/") {
		share = dir
	}
	s := spInside(t)
	host := sshhost.Start(t, sshhost.Options{Hide: []string{s.root}, Share: []string{share},
		SetEnv: []string{"ANTHROPIC_API_KEY=" + claudetest.DummyKey, "IS_SANDBOX=1"}})
	// What a person's earlier `claude` on the host would have left: the
	// onboarding done, the key approved, the project trusted.
	state, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true, "lastOnboardingVersion": claudetest.Version(), "bypassPermissionsModeAccepted": true,
		"customApiKeyResponses": map[string]any{"approved": []string{claudetest.DummyKey[len(claudetest.DummyKey)-20:]}, "rejected": []string{}},
		"projects":              map[string]any{"/root/project": map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []string{}}},
		"autoUpdates":           false,
	})
	host.MustRun(t, "mkdir -p /root/project /root/.claude && cat > /root/.claude.json <<'EOF'\n"+string(state)+"\nEOF\ncp /root/.claude.json /root/.claude/.claude.json && echo '{\"skipDangerousModePermissionPrompt\": true}' > /root/.claude/settings.json")

	url := api.URL()
	runtime := testutil.ShortTempDir(t)
	s.vars = append(s.vars, "PANETEAM_SSH="+host.SSH(), "XDG_RUNTIME_DIR="+runtime, "PANETEAM_STATE_DIR="+t.TempDir(),
		"ANTHROPIC_BASE_URL="+url, "HTTPS_PROXY="+url, "HTTP_PROXY="+url, "https_proxy="+url, "http_proxy="+url,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DO_NOT_TRACK=1")

	const prompt = "You are rita, on the big box: report to the lead."
	api.On(prompt,
		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "team-lead", "message": "rita reporting from the host", "summary": "report"})),
		claudetest.Text("Reported."),
	)
	_, errOut, code := s.run("spawn-pane", "--team", s.name, "--name", "rita", "--host", sshhost.Alias, "--claude",
		"--permission-mode", "bypassPermissions", "--cwd", "/root/project", "--prompt", prompt, "--", bin)
	if code != 0 {
		t.Fatalf("spawn-pane --host --claude: exit %d\n%s", code, errOut)
	}
	inbox := filepath.Join(s.root, "teams", s.name, "inboxes", "team-lead.json")
	testutil.Eventually(t, 120*time.Second, "rita's report in the lead's inbox", func() bool {
		b, _ := os.ReadFile(inbox)
		var msgs []mailbox.Message
		json.Unmarshal(b, &msgs)
		for _, m := range msgs {
			if m.From == "rita" && strings.Contains(m.Text, "rita reporting from the host") {
				return true
			}
		}
		return false
	})
	if first := api.WaitMessages(t, 10*time.Second, 0, prompt); strings.Contains(first.TailText(), `verified="false"`) {
		t.Errorf("the prompt reached rita's model marked verified=\"false\":\n%s", first.TailText())
	}
	s.mustRun("kill-pane", "--team", s.name, "--name", "rita")
	var left string
	defer func() {
		if t.Failed() {
			t.Logf("left on the host:\n%s", left)
		}
	}()
	testutil.Eventually(t, 20*time.Second, "rita ended and unmounted on the host", func() bool {
		got, err := host.Run(t, `grep fuse /proc/mounts; ps -eo args | grep -E '^(paneteam|sshfs|/root/.cache|`+bin+`)' | grep -v grep; find /root/.claude/teams /root/.claude/tasks -mindepth 1 2>/dev/null; true`)
		left = got
		return err == nil && strings.TrimSpace(got) == ""
	})
}
