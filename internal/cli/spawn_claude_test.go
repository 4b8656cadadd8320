package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/protocol/claudeversion"
	"github.com/paneteam/paneteam/internal/protocol/provenance"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

func TestClaudeTeammateCommandLine(t *testing.T) {
	yes := true
	cfg := &team.Config{Name: "review", LeadSessionID: "sess-1"}
	tm := team.Team{Root: "/r", Name: "review"}
	vars := map[string]string{"ANTHROPIC_BASE_URL": "https://proxy.example", "HTTPS_PROXY": "http://p:3128", "HOME": "/home/u"}
	key := testKey(t)
	v330 := claudeversion.Version{Major: 2, Minor: 1, Patch: 330}
	v88 := claudeversion.Version{Major: 2, Minor: 1, Patch: 88}
	tests := []struct {
		name     string
		req      spawnRequest
		member   team.Member
		launch   claudeLaunch
		wantArgv string
		wantEnv  []string
	}{
		{
			name:     "2.1.330: a key, and the permission flag always",
			req:      spawnRequest{claude: true, perm: "default"},
			member:   team.Member{AgentID: "alice@review", Name: "alice", Color: "red"},
			launch:   claudeLaunch{version: v330, key: key, backend: team.BackendTmux},
			wantArgv: "claude --agent-id alice@review --agent-name alice --team-name review --agent-color red --parent-session-id sess-1 --lead-verify-key " + key.Flag() + " --permission-mode default",
			wantEnv: []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=alice", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1",
				"CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS=", "ANTHROPIC_BASE_URL=https://proxy.example", "HTTPS_PROXY=http://p:3128"},
		},
		{
			name:     "unknown version: as the tested release",
			req:      spawnRequest{claude: true},
			member:   team.Member{AgentID: "alice@review", Name: "alice", Color: "red"},
			launch:   claudeLaunch{backend: team.BackendTmux},
			wantArgv: "claude --agent-id alice@review --agent-name alice --team-name review --agent-color red --parent-session-id sess-1 --permission-mode default",
		},
		{
			name:     "2.1.330: type, model, bypass; a given binary and extra args",
			req:      spawnRequest{claude: true, perm: "bypassPermissions", command: []string{"/opt/claude", "--verbose"}, root: "/r"},
			member:   team.Member{AgentID: "bob@review", Name: "bob", Color: "blue", AgentType: "reviewer", Model: "opus"},
			launch:   claudeLaunch{version: v330, backend: team.BackendITerm2},
			wantArgv: "/opt/claude --agent-id bob@review --agent-name bob --team-name review --agent-color blue --parent-session-id sess-1 --agent-type reviewer --dangerously-skip-permissions --model opus --verbose",
			wantEnv: []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=bob", "PANETEAM_ROOT=/r", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1",
				"CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS=", "CLAUDE_CONFIG_DIR=/r", "ANTHROPIC_BASE_URL=https://proxy.example", "HTTPS_PROXY=http://p:3128"},
		},
		{
			name:     "2.1.330: plan mode required is plan, whatever the mode",
			req:      spawnRequest{claude: true, perm: "bypassPermissions"},
			member:   team.Member{AgentID: "c@review", Name: "c", Color: "green", PlanModeRequired: &yes},
			launch:   claudeLaunch{version: v330, key: key, backend: team.BackendInProcess},
			wantArgv: "claude --agent-id c@review --agent-name c --team-name review --agent-color green --parent-session-id sess-1 --lead-verify-key " + key.Flag() + " --plan-mode-required --permission-mode plan",
		},
		{
			name:     "2.1.330: a value that looks like a flag is joined to it",
			req:      spawnRequest{claude: true, perm: "dontAsk"},
			member:   team.Member{AgentID: "d@review", Name: "d", Color: "yellow", AgentType: "-x", Model: "https://m"},
			launch:   claudeLaunch{version: v330},
			wantArgv: "claude --agent-id d@review --agent-name d --team-name review --agent-color yellow --parent-session-id sess-1 --agent-type=-x --permission-mode dontAsk --model=https://m",
		},
		{
			name:     "2.1.88: --teammate-mode, no key even if one was made, nothing for default",
			req:      spawnRequest{claude: true, perm: "default"},
			member:   team.Member{AgentID: "e@review", Name: "e", Color: "red"},
			launch:   claudeLaunch{version: v88, key: key, backend: team.BackendTmux},
			wantArgv: "claude --agent-id e@review --agent-name e --team-name review --agent-color red --parent-session-id sess-1 --teammate-mode tmux",
		},
		{
			name:     "2.1.88: plan mode only as --plan-mode-required; in-process",
			req:      spawnRequest{claude: true, perm: "acceptEdits"},
			member:   team.Member{AgentID: "f@review", Name: "f", Color: "red", PlanModeRequired: &yes},
			launch:   claudeLaunch{version: v88, backend: team.BackendInProcess},
			wantArgv: "claude --agent-id f@review --agent-name f --team-name review --agent-color red --parent-session-id sess-1 --plan-mode-required --teammate-mode in-process",
		},
		{
			name:     "2.1.88: acceptEdits as asked",
			req:      spawnRequest{claude: true, perm: "acceptEdits"},
			member:   team.Member{AgentID: "g@review", Name: "g", Color: "red"},
			launch:   claudeLaunch{version: v88, backend: team.BackendTmux},
			wantArgv: "claude --agent-id g@review --agent-name g --team-name review --agent-color red --parent-session-id sess-1 --permission-mode acceptEdits --teammate-mode tmux",
		},
		{
			name:     "not --claude: the command as given",
			req:      spawnRequest{command: []string{"npm", "test"}},
			member:   team.Member{AgentID: "e@review", Name: "e"},
			wantArgv: "npm test",
			wantEnv:  []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=e"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.vars = func(k string) string { return vars[k] }
			argv, env := tc.req.argv(tm, cfg, tc.member, tc.launch)
			if got := strings.Join(argv, " "); got != tc.wantArgv {
				t.Errorf("argv\n got %s\nwant %s", got, tc.wantArgv)
			}
			if tc.wantEnv != nil && strings.Join(env, " ") != strings.Join(tc.wantEnv, " ") {
				t.Errorf("env\n got %q\nwant %q", env, tc.wantEnv)
			}
		})
	}
}

// TestPermissionFlagAtEachCutOver: every mode, at the releases around the
// cut-over where the permission flag became unconditional.
func TestPermissionFlagAtEachCutOver(t *testing.T) {
	want := map[string][2]string{ // mode: before 2.1.317, from 2.1.317
		"default":           {"", "--permission-mode default"},
		"plan":              {"--permission-mode plan", "--permission-mode plan"},
		"acceptEdits":       {"--permission-mode acceptEdits", "--permission-mode acceptEdits"},
		"auto":              {"--permission-mode auto", "--permission-mode auto"},
		"dontAsk":           {"--permission-mode dontAsk", "--permission-mode dontAsk"},
		"bypassPermissions": {"--dangerously-skip-permissions", "--dangerously-skip-permissions"},
	}
	if len(want) != len(permissionModes) {
		t.Fatalf("spawn-pane offers %v", permissionModes)
	}
	before := claudeversion.Version{Major: 2, Minor: 1, Patch: 316}
	for mode, w := range want {
		for i, v := range []claudeversion.Version{before, claudeversion.PermissionFlagAlways} {
			got := strings.Join(permissionFlag(mode, false, v.Features().PermissionAlways), " ")
			if got != w[i] {
				t.Errorf("%s at %s: %q, want %q", mode, v, got, w[i])
			}
		}
	}
}

func testKey(t *testing.T) *provenance.Key {
	t.Helper()
	k, err := provenance.NewKey(time.UnixMilli(1767225590000))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

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

// TestKeyOnlyWherePaneteamLeads: a key is made only for a Claude Code
// teammate that understands it, in a team no Claude Code process leads,
// when signing was not turned off.
func TestKeyOnlyWherePaneteamLeads(t *testing.T) {
	root := t.TempDir()
	tm := team.Team{Root: root, Name: "crew"}
	keys := provenance.Store{Dir: filepath.Join(t.TempDir(), "keys")}
	m := team.Member{Name: "alice", AgentID: "alice@crew"}
	paneteamLed := &team.Config{Name: "crew"}
	claudeLed := &team.Config{Name: "crew"}
	claudeLed.Fields.Set("leadProcess", json.RawMessage(`{"pid":1,"pidSpace":"h#pid:[1]","claimedAt":1}`))
	old := claudeversion.Version{Major: 2, Minor: 1, Patch: 322}
	tests := []struct {
		name    string
		req     spawnRequest
		cfg     *team.Config
		wantKey bool
	}{
		{"paneteam leads", spawnRequest{claude: true, sign: true, keys: keys}, paneteamLed, true},
		{"Claude Code leads", spawnRequest{claude: true, sign: true, keys: keys}, claudeLed, false},
		{"--no-sign or inside a teammate", spawnRequest{claude: true, keys: keys}, paneteamLed, false},
		{"a release before --lead-verify-key", spawnRequest{claude: true, sign: true, keys: keys, version: old}, paneteamLed, false},
		{"not Claude Code", spawnRequest{sign: true, keys: keys}, paneteamLed, false},
	}
	for _, tc := range tests {
		l, signer, undo, err := tc.req.prepareClaude(context.Background(), tm, tc.cfg, m, lockfile.Options{}, team.BackendTmux)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (l.key != nil) != tc.wantKey || (signer != nil) != tc.wantKey {
			t.Errorf("%s: key %v signer %v, want a key: %v", tc.name, l.key != nil, signer != nil, tc.wantKey)
		}
		if k, _ := keys.Load(tm.InboxPath("alice")); (k != nil) != tc.wantKey {
			t.Errorf("%s: stored key %v", tc.name, k != nil)
		}
		undo()
		if k, _ := keys.Load(tm.InboxPath("alice")); k != nil {
			t.Errorf("%s: undo kept the key", tc.name)
		}
	}
}
