package team

// Who runs a member (Claude Code, docs/PROTOCOL.md §3): the
// lead row, a teammate Claude Code's lead hosts in its own process, one
// it started in a pane of its own, or one paneteam started (paneteam
// records its own facts under the member's "paneteam" key; Claude Code
// never does).
const (
	RunByLead            = "lead"
	RunByClaudeInProcess = "claude-in-process"
	RunByClaudePane      = "claude-pane"
	RunByPaneteam        = "paneteam"
	RunByUnknown         = "unknown"
)

// RunBy says who runs m. In a team paneteam leads (its own lead record
// and no leadProcess) every teammate is paneteam's; elsewhere a member is
// paneteam's when it carries paneteam's record, unless that record says
// Claude Code's lead started it through paneteam's router: then it is
// Claude's own pane teammate.
func (c *Config) RunBy(m *Member) string {
	_, claudeLed := c.LeadProcess()
	switch {
	case m.Name == LeadName:
		return RunByLead
	case m.Paneteam != nil && m.Paneteam.Routed && claudeLed:
		return RunByClaudePane
	case m.Paneteam != nil:
		return RunByPaneteam
	case !claudeLed && c.Paneteam != nil && c.Paneteam.LeaderPID > 0:
		return RunByPaneteam
	case m.BackendType == BackendInProcess || m.TmuxPaneID == InProcessPaneID:
		return RunByClaudeInProcess
	case isTmuxPaneID(m.TmuxPaneID) || m.BackendType == BackendITerm2 && m.TmuxPaneID != "":
		return RunByClaudePane
	}
	return RunByUnknown
}

// StartedByClaude reports whether Claude Code started m (in its own
// process or in a pane of its own): only Claude Code's lead may stop it.
func (c *Config) StartedByClaude(m *Member) bool {
	r := c.RunBy(m)
	return r == RunByClaudeInProcess || r == RunByClaudePane
}

// ClaudeTeammates lists the members Claude Code's lead started itself.
func (c *Config) ClaudeTeammates() []string {
	var out []string
	for i := range c.Members {
		if c.StartedByClaude(&c.Members[i]) {
			out = append(out, c.Members[i].Name)
		}
	}
	return out
}

// isTmuxPaneID reports whether id is a tmux pane id, %N.
func isTmuxPaneID(id string) bool {
	if len(id) < 2 || id[0] != '%' {
		return false
	}
	for _, c := range id[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Routed reports whether Claude Code's lead started m through paneteam's
// teammate router: Claude's teammate, whose inbox paneteam reads.
func (m *Member) Routed() bool { return m.Paneteam != nil && m.Paneteam.Routed }
