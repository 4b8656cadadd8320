package spawn

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/mailbox"
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
		launcher Program
		member   team.Member
		launch   claudeLaunch
		root     string
		wantArgv string
		wantEnv  []string
	}{
		{
			name:     "2.1.330: a key, and the permission flag always",
			launcher: &Claude{PermissionMode: "default"},
			member:   team.Member{AgentID: "alice@review", Name: "alice", Color: "red"},
			launch:   claudeLaunch{version: v330, key: key, backend: team.BackendTmux},
			wantArgv: "claude --agent-id alice@review --agent-name alice --team-name review --agent-color red --parent-session-id sess-1 --lead-verify-key " + key.Flag() + " --permission-mode default",
			wantEnv: []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=alice", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1",
				"CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS=", "ANTHROPIC_BASE_URL=https://proxy.example", "HTTPS_PROXY=http://p:3128"},
		},
		{
			name:     "unknown version: as the tested release",
			launcher: &Claude{},
			member:   team.Member{AgentID: "alice@review", Name: "alice", Color: "red"},
			launch:   claudeLaunch{backend: team.BackendTmux},
			wantArgv: "claude --agent-id alice@review --agent-name alice --team-name review --agent-color red --parent-session-id sess-1 --permission-mode default",
		},
		{
			name:     "2.1.330: type, model, bypass; a given binary and extra args",
			launcher: &Claude{Command: []string{"/opt/claude", "--verbose"}, PermissionMode: "bypassPermissions"}, root: "/r",
			member:   team.Member{AgentID: "bob@review", Name: "bob", Color: "blue", AgentType: "reviewer", Model: "opus"},
			launch:   claudeLaunch{version: v330, backend: team.BackendITerm2},
			wantArgv: "/opt/claude --agent-id bob@review --agent-name bob --team-name review --agent-color blue --parent-session-id sess-1 --agent-type reviewer --dangerously-skip-permissions --model opus --verbose",
			wantEnv: []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=bob", "PANETEAM_ROOT=/r", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1",
				"CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS=", "CLAUDE_CONFIG_DIR=/r", "ANTHROPIC_BASE_URL=https://proxy.example", "HTTPS_PROXY=http://p:3128"},
		},
		{
			name:     "2.1.330: plan mode required is plan, whatever the mode",
			launcher: &Claude{PermissionMode: "bypassPermissions"},
			member:   team.Member{AgentID: "c@review", Name: "c", Color: "green", PlanModeRequired: &yes},
			launch:   claudeLaunch{version: v330, key: key, backend: team.BackendInProcess},
			wantArgv: "claude --agent-id c@review --agent-name c --team-name review --agent-color green --parent-session-id sess-1 --lead-verify-key " + key.Flag() + " --plan-mode-required --permission-mode plan",
		},
		{
			name:     "2.1.330: a value that looks like a flag is joined to it",
			launcher: &Claude{PermissionMode: "dontAsk"},
			member:   team.Member{AgentID: "d@review", Name: "d", Color: "yellow", AgentType: "-x", Model: "https://m"},
			launch:   claudeLaunch{version: v330},
			wantArgv: "claude --agent-id d@review --agent-name d --team-name review --agent-color yellow --parent-session-id sess-1 --agent-type=-x --permission-mode dontAsk --model=https://m",
		},
		{
			name:     "2.1.88: --teammate-mode, no key even if one was made, nothing for default",
			launcher: &Claude{PermissionMode: "default"},
			member:   team.Member{AgentID: "e@review", Name: "e", Color: "red"},
			launch:   claudeLaunch{version: v88, key: key, backend: team.BackendTmux},
			wantArgv: "claude --agent-id e@review --agent-name e --team-name review --agent-color red --parent-session-id sess-1 --teammate-mode tmux",
		},
		{
			name:     "2.1.88: plan mode only as --plan-mode-required; in-process",
			launcher: &Claude{PermissionMode: "acceptEdits"},
			member:   team.Member{AgentID: "f@review", Name: "f", Color: "red", PlanModeRequired: &yes},
			launch:   claudeLaunch{version: v88, backend: team.BackendInProcess},
			wantArgv: "claude --agent-id f@review --agent-name f --team-name review --agent-color red --parent-session-id sess-1 --plan-mode-required --teammate-mode in-process",
		},
		{
			name:     "2.1.88: acceptEdits as asked",
			launcher: &Claude{PermissionMode: "acceptEdits"},
			member:   team.Member{AgentID: "g@review", Name: "g", Color: "red"},
			launch:   claudeLaunch{version: v88, backend: team.BackendTmux},
			wantArgv: "claude --agent-id g@review --agent-name g --team-name review --agent-color red --parent-session-id sess-1 --permission-mode acceptEdits --teammate-mode tmux",
		},
		{
			name:     "not --claude: the command as given",
			launcher: Command{Argv: []string{"npm", "test"}},
			member:   team.Member{AgentID: "e@review", Name: "e"},
			wantArgv: "npm test",
			wantEnv:  []string{"PANETEAM_TEAM=review", "PANETEAM_AGENT=e"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Setup{Team: tm, Config: cfg, Member: tc.member, Root: tc.root, Caller: post.Caller{Getenv: func(k string) string { return vars[k] }}}
			var argv, env []string
			switch l := tc.launcher.(type) {
			case *Claude:
				argv, env = l.argv(s, tc.launch)
			default:
				launch, err := l.Prepare(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				argv, env = launch.Argv, launch.Env
			}
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
	if len(want) != len(mailbox.PermissionModes) {
		t.Fatalf("spawn-pane offers %v", mailbox.PermissionModes)
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
	claudeLed.SetExtra("leadProcess", json.RawMessage(`{"pid":1,"pidSpace":"h#pid:[1]","claimedAt":1}`))
	old := claudeversion.Version{Major: 2, Minor: 1, Patch: 322}
	lead := post.Caller{Getenv: func(string) string { return "" }}
	inTeammate := post.Caller{Getenv: func(k string) string {
		if k == "PANETEAM_AGENT" {
			return "bob"
		}
		return ""
	}}
	tests := []struct {
		name     string
		launcher Program
		caller   post.Caller
		cfg      *team.Config
		wantKey  bool
	}{
		{"paneteam leads", &Claude{Keys: &keys}, lead, paneteamLed, true},
		{"Claude Code leads", &Claude{Keys: &keys}, lead, claudeLed, false},
		{"--no-sign", &Claude{Keys: &keys, NoSign: true}, lead, paneteamLed, false},
		{"inside a teammate", &Claude{Keys: &keys}, inTeammate, paneteamLed, false},
		{"a release before --lead-verify-key", &Claude{Keys: &keys, Version: old}, lead, paneteamLed, false},
		{"not Claude Code", Command{Argv: []string{"sh"}}, lead, paneteamLed, false},
	}
	for _, tc := range tests {
		s := Setup{Team: tm, Config: tc.cfg, Member: m, Backend: team.BackendTmux, Caller: tc.caller}
		l, err := tc.launcher.Prepare(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		key := argAfter(l.Argv, "--lead-verify-key") != ""
		if key != tc.wantKey || (l.Signer != nil) != tc.wantKey || l.Keyed != tc.wantKey {
			t.Errorf("%s: key flag %v signer %v keyed %v, want a key: %v", tc.name, key, l.Signer != nil, l.Keyed, tc.wantKey)
		}
		if k, _ := keys.Load(tm.InboxPath("alice")); (k != nil) != tc.wantKey {
			t.Errorf("%s: stored key %v", tc.name, k != nil)
		}
		if l.Undo != nil {
			l.Undo()
		}
		if k, _ := keys.Load(tm.InboxPath("alice")); k != nil {
			t.Errorf("%s: undo kept the key", tc.name)
		}
	}
}

func argAfter(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestPersonsOwnSession: the person's arguments that choose the session
// are obeyed (no --session-id of paneteam's beside them) and the session
// they name is the one recorded.
func TestPersonsOwnSession(t *testing.T) {
	for _, tc := range []struct {
		args []string
		id   string
		own  bool
	}{
		{nil, "", false},
		{[]string{"--verbose", "--model", "opus"}, "", false},
		{[]string{"--session-id", "s-1"}, "s-1", true},
		{[]string{"--session-id=s-2"}, "s-2", true},
		{[]string{"--resume", "s-3"}, "s-3", true},
		{[]string{"-r", "s-3", "--fork-session"}, "", true},
		{[]string{"--resume", "s-3", "--fork-session", "--session-id", "s-4"}, "s-4", true},
		{[]string{"--resume", "--verbose"}, "", true},
		{[]string{"-c"}, "", true},
		{[]string{"--continue"}, "", true},
	} {
		id, own := personSession(tc.args)
		if id != tc.id || own != tc.own {
			t.Errorf("%q: session %q, own %v; want %q, %v", tc.args, id, own, tc.id, tc.own)
		}
	}
}
