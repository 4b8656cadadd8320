package cli

import (
	"strings"
	"testing"

	"github.com/paneteam/paneteam/team"
)

func TestClaudeTeammateCommandLine(t *testing.T) {
	yes := true
	cfg := &team.Config{Name: "review", LeadSessionID: "sess-1"}
	tm := team.Team{Root: "/r", Name: "review"}
	vars := map[string]string{"ANTHROPIC_BASE_URL": "https://proxy.example", "HTTPS_PROXY": "http://p:3128", "HOME": "/home/u"}
	tests := []struct {
		name     string
		req      spawnRequest
		member   team.Member
		backend  string
		wantArgv string
		wantEnv  []string
	}{
		{
			name:     "plain teammate",
			req:      spawnRequest{claude: true},
			member:   team.Member{AgentID: "alice@review", Name: "alice", Color: "red"},
			backend:  team.BackendTmux,
			wantArgv: "claude --agent-id alice@review --agent-name alice --team-name review --agent-color red --parent-session-id sess-1 --teammate-mode tmux",
			wantEnv:  []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=alice", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "ANTHROPIC_BASE_URL=https://proxy.example", "HTTPS_PROXY=http://p:3128"},
		},
		{
			name:     "type, model, bypass; a given binary and extra args",
			req:      spawnRequest{claude: true, perm: "bypassPermissions", command: []string{"/opt/claude", "--verbose"}, root: "/r"},
			member:   team.Member{AgentID: "bob@review", Name: "bob", Color: "blue", AgentType: "reviewer", Model: "opus"},
			backend:  team.BackendITerm2,
			wantArgv: "/opt/claude --agent-id bob@review --agent-name bob --team-name review --agent-color blue --parent-session-id sess-1 --agent-type reviewer --dangerously-skip-permissions --model opus --teammate-mode tmux --verbose",
			wantEnv:  []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=bob", "PANETEAM_ROOT=/r", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "CLAUDE_CONFIG_DIR=/r", "ANTHROPIC_BASE_URL=https://proxy.example", "HTTPS_PROXY=http://p:3128"},
		},
		{
			name:     "plan mode never inherits the bypass flag",
			req:      spawnRequest{claude: true, perm: "bypassPermissions"},
			member:   team.Member{AgentID: "c@review", Name: "c", Color: "green", PlanModeRequired: &yes},
			backend:  team.BackendInProcess,
			wantArgv: "claude --agent-id c@review --agent-name c --team-name review --agent-color green --parent-session-id sess-1 --plan-mode-required --teammate-mode in-process",
		},
		{
			name:     "acceptEdits",
			req:      spawnRequest{claude: true, perm: "acceptEdits"},
			member:   team.Member{AgentID: "d@review", Name: "d", Color: "yellow"},
			backend:  team.BackendTmux,
			wantArgv: "claude --agent-id d@review --agent-name d --team-name review --agent-color yellow --parent-session-id sess-1 --permission-mode acceptEdits --teammate-mode tmux",
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
			argv, env := tc.req.argv(tm, cfg, tc.member, tc.backend)
			if got := strings.Join(argv, " "); got != tc.wantArgv {
				t.Errorf("argv\n got %s\nwant %s", got, tc.wantArgv)
			}
			if tc.wantEnv != nil && strings.Join(env, " ") != strings.Join(tc.wantEnv, " ") {
				t.Errorf("env\n got %q\nwant %q", env, tc.wantEnv)
			}
		})
	}
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
