package team

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// Config is a team's config.json, in Claude Code's layout. Fields paneteam
// does not know survive a read-modify-write in their original place.
type Config struct {
	Name          string   `json:"name"`
	Description   string   `json:"description,omitempty"`
	CreatedAt     int64    `json:"createdAt"`
	LeadAgentID   string   `json:"leadAgentId"`
	LeadSessionID string   `json:"leadSessionId,omitempty"`
	HiddenPaneIDs []string `json:"hiddenPaneIds,omitempty"`
	Members       []Member `json:"members"`
	// Paneteam holds paneteam's own facts about the team; Claude Code
	// ignores it and keeps it, like any field it does not know.
	Paneteam *TeamMeta `json:"paneteam,omitempty"`

	extra jsonx.Fields // keys paneteam does not know, and the order they were read in
	rows               // member rows that did not decode (rows.go)
	lead  leadMemo     // LeadProcess as decoded (leadprocess.go)
}

// Member is one entry of config.json's members.
type Member struct {
	AgentID          string            `json:"agentId"`
	Name             string            `json:"name"`
	AgentType        string            `json:"agentType,omitempty"`
	Model            string            `json:"model,omitempty"`
	Prompt           string            `json:"prompt,omitempty"`
	Color            string            `json:"color,omitempty"`
	PlanModeRequired *bool             `json:"planModeRequired,omitempty"`
	JoinedAt         int64             `json:"joinedAt"`
	TmuxPaneID       string            `json:"tmuxPaneId"`
	Cwd              string            `json:"cwd"`
	WorktreePath     string            `json:"worktreePath,omitempty"`
	SessionID        string            `json:"sessionId,omitempty"`
	Subscriptions    []json.RawMessage `json:"subscriptions"`
	BackendType      string            `json:"backendType,omitempty"`
	IsActive         *bool             `json:"isActive,omitempty"`
	Mode             string            `json:"mode,omitempty"`
	Paneteam         *MemberMeta       `json:"paneteam,omitempty"`

	extra jsonx.Fields // keys paneteam does not know, and the order they were read in
	// at is the row's place in members as read, from 1 (0: a new member),
	// so that a rewrite keeps the rows it could not read between the same
	// neighbours (rows.go).
	at int
}

// Backend types as Claude Code records them in backendType.
const (
	BackendTmux      = "tmux"
	BackendITerm2    = "iterm2"
	BackendInProcess = "in-process"
)

// Backend types paneteam records for its own members opened as panes of a
// terminal emulator (Claude Code never writes these).
const (
	BackendKitty   = "kitty"
	BackendWezTerm = "wezterm"
	BackendZellij  = "zellij"
	BackendGhostty = "ghostty" // Ghostty's splits, on macOS (1.3.0+)
)

// InProcessPaneID is the tmuxPaneId Claude Code records for in-process members.
const InProcessPaneID = "in-process"

// TeamMeta is what paneteam records about a team for itself.
type TeamMeta struct {
	// LeaderPID and LeaderStart identify the lead's process; a team whose
	// leader is gone (or whose pid now names another process) is an orphan.
	LeaderPID   int    `json:"leaderPid,omitempty"`
	LeaderStart string `json:"leaderStart,omitempty"`
	// Backend is the backend of the latest teammate spawned. It is a
	// record, not a choice: each spawn decides its own (--backend,
	// PANETEAM_BACKEND, else the environment).
	Backend string `json:"backend,omitempty"`
	// TmuxSocket is the socket path of the tmux server the panes live on;
	// TmuxPrivate says the server is paneteam's own, to stop on cleanup.
	TmuxSocket  string `json:"tmuxSocket,omitempty"`
	TmuxPrivate bool   `json:"tmuxPrivate,omitempty"`
	// LeaderPane is the lead's tmux pane id or iTerm2 session id.
	LeaderPane string `json:"leaderPane,omitempty"`
	// Layout and LeadPercent are the tmux layout last asked for with
	// --layout or --lead-percent, kept so that every later re-layout of the
	// team's window arranges it the same way ("": the default).
	Layout      string `json:"layout,omitempty"`
	LeadPercent int    `json:"leadPercent,omitempty"`

	extra jsonx.Fields // keys paneteam does not know, and the order they were read in
}

// MemberMeta is what paneteam records about a member for itself.
type MemberMeta struct {
	// PID and PIDStart identify the process hosting the member (the
	// in-process host, or the pane's process).
	PID      int    `json:"pid,omitempty"`
	PIDStart string `json:"pidStart,omitempty"`
	// TmuxSocket is the server the member's pane lives on.
	TmuxSocket string `json:"tmuxSocket,omitempty"`
	// HostState is the in-process host's state file (its socket, log and
	// the command's pid), for kill, logs and attach.
	HostState string `json:"hostState,omitempty"`
	// Keyed says the member was started with --lead-verify-key: it believes
	// entries from team-lead, user or system only when signed with the key
	// paneteam keeps for it (docs/PROTOCOL.md §11).
	Keyed bool `json:"keyed,omitempty"`
	// IdleBy says how the member's idle is known: IdleByHook when an agent
	// CLI's own turn-end hook reports it ('spawn-pane --agent'); empty for
	// a program whose idle paneteam guesses from quiet output.
	IdleBy string `json:"idleBy,omitempty"`
	// Terminal is where a member paneteam opened as a pane of a terminal
	// emulator lives (backendType "kitty", "wezterm" or "zellij"): enough
	// for any later paneteam, run from any shell, to reach that terminal
	// and close or look for the pane. Absent for other backends.
	Terminal *TerminalPane `json:"terminal,omitempty"`
	// CLI is the agent CLI the member runs: "claude" for Claude Code,
	// else its profile's name ("codex", "gemini", "opencode" or a
	// person's own); empty for a plain command, and for a member paneteam
	// started before it recorded this.
	CLI string `json:"cli,omitempty"`
	// Routed says Claude Code's lead started the member itself, through
	// paneteam's teammate router ('paneteam claude'): it is Claude's
	// teammate (only Claude's lead may stop it), but paneteam runs it and
	// reads its inbox.
	Routed bool `json:"routed,omitempty"`
	// Shutdown says how the member is stopped, as the program that started
	// it knew: ShutdownAsk for one that answers a shutdown_request (Claude
	// Code, an agent CLI under 'paneteam teammate --agent', a program under
	// 'paneteam teammate'), ShutdownEnd for a plain program that never
	// reads its inbox and so can never answer. Empty for a member paneteam
	// started before it recorded this: it is asked, and waited for.
	Shutdown string `json:"shutdown,omitempty"`

	extra jsonx.Fields // keys paneteam does not know, and the order they were read in
}

// Values of MemberMeta.Shutdown.
const (
	// ShutdownAsk: the member answers the shutdown handshake.
	ShutdownAsk = "ask"
	// ShutdownEnd: the member cannot answer; shutdown ends it at once.
	ShutdownEnd = "end"
)

// Answers reports whether a shutdown_request to m can be answered: false
// only when paneteam recorded at its start that it cannot (ShutdownEnd).
func (m *Member) Answers() bool {
	return m.Paneteam == nil || m.Paneteam.Shutdown != ShutdownEnd
}

// TerminalPane is a member's pane in a terminal emulator, as
// MemberMeta.Terminal records it. The member's tmuxPaneId holds the
// terminal's own id for the pane (kitty's window id, WezTerm's pane id,
// Zellij's terminal pane id).
type TerminalPane struct {
	// Env is the terminal's variables that address it, as the lead's
	// shell saw them: KITTY_LISTEN_ON and KITTY_WINDOW_ID (the lead's
	// window); WEZTERM_UNIX_SOCKET and WEZTERM_PANE; ZELLIJ_SESSION_NAME
	// and ZELLIJ_SOCKET_DIR.
	Env map[string]string `json:"env"`
	// Dir is the folder, in paneteam's own state folder, where the
	// terminal's driver keeps its files for the team's panes (Zellij's:
	// each pane's process), one per team and terminal. It is only a
	// pointer: paneteam acts on it only when it matches the folder it
	// recorded when it opened the pane (this file is members' to write).
	Dir string `json:"dir,omitempty"`
	// Tab says the pane was opened in a tab of its own (the windows
	// layout). Otherwise Beside is the pane it split ("" the lead's),
	// Horizontal whether it went beside it rather than below, and Width
	// and Height its notional size when made (the terminal taken as
	// 200x50 cells), from which paneteam's layout places later panes.
	Tab        bool   `json:"tab,omitempty"`
	Beside     string `json:"beside,omitempty"`
	Horizontal bool   `json:"horizontal,omitempty"`
	Width      int    `json:"width,omitempty"`
	Height     int    `json:"height,omitempty"`
}

// IdleByHook is MemberMeta.IdleBy for a member whose turn ends are
// reported by its CLI's own hook.
const IdleByHook = "hook"

func (m *Member) UnmarshalJSON(b []byte) error {
	type plain Member
	return jsonx.Unmarshal(b, (*plain)(m), &m.extra)
}

func (m Member) MarshalJSON() ([]byte, error) {
	type plain Member
	if m.Subscriptions == nil {
		m.Subscriptions = []json.RawMessage{}
	}
	return jsonx.MarshalWith(plain(m), m.extra)
}

func (t *TeamMeta) UnmarshalJSON(b []byte) error {
	type plain TeamMeta
	return jsonx.Unmarshal(b, (*plain)(t), &t.extra)
}

func (t TeamMeta) MarshalJSON() ([]byte, error) {
	type plain TeamMeta
	return jsonx.MarshalWith(plain(t), t.extra)
}

func (m *MemberMeta) UnmarshalJSON(b []byte) error {
	type plain MemberMeta
	return jsonx.Unmarshal(b, (*plain)(m), &m.extra)
}

func (m MemberMeta) MarshalJSON() ([]byte, error) {
	type plain MemberMeta
	return jsonx.MarshalWith(plain(m), m.extra)
}

// Member returns the member with the given name (case-insensitive, as
// Claude Code compares names), or nil.
func (c *Config) Member(name string) *Member {
	for i := range c.Members {
		if equalFold(c.Members[i].Name, name) {
			return &c.Members[i]
		}
	}
	return nil
}

// LeadAgentName is the name the team's lead goes by, and so the name of
// its inbox: the name part of leadAgentId ("team-lead@crew" is
// team-lead), or LeadName when the config records none (a nil config
// included). Claude Code names its lead in leadAgentId, and writes its
// teammates' idle notices to that inbox.
func (c *Config) LeadAgentName() string {
	if c == nil {
		return LeadName
	}
	if l, _, ok := strings.Cut(c.LeadAgentID, "@"); ok && l != "" {
		return l
	}
	return LeadName
}

// MemberNames lists the members' names in config order.
func (c *Config) MemberNames() []string {
	names := make([]string, len(c.Members))
	for i, m := range c.Members {
		names[i] = m.Name
	}
	return names
}

// RemoveMember drops the named member, and its pane from hiddenPaneIds
// (a member that leaves takes its pane with it), and reports whether it
// was there.
func (c *Config) RemoveMember(name string) bool {
	for i := range c.Members {
		if equalFold(c.Members[i].Name, name) {
			pane := c.Members[i].TmuxPaneID
			c.Members = append(c.Members[:i], c.Members[i+1:]...)
			if pane != "" {
				c.HiddenPaneIDs = slices.DeleteFunc(c.HiddenPaneIDs, func(id string) bool { return id == pane })
			}
			return true
		}
	}
	return false
}

// Active reports whether Claude Code would count m as running: isActive
// true or absent.
func (m *Member) Active() bool { return m.IsActive == nil || *m.IsActive }

// Encode writes c exactly as Claude Code lays config.json out.
func (c *Config) Encode() ([]byte, error) { return jsonx.MarshalIndent(c) }
