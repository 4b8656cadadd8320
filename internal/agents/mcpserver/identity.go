// Package mcpserver is paneteam's MCP server: it gives an agent CLI that
// speaks MCP (Codex, Gemini CLI, OpenCode, Claude Code) its team as tools,
// acting always as the one teammate named by PANETEAM_AGENT. It reads and
// writes the team's inboxes and task files through the mailbox and team
// packages, so entries and tasks are exactly as Claude Code writes them.
//
// It lives in its own program (cmd/paneteam-mcp) because the MCP SDK links
// net/http: in paneteam itself that would cost every keybinding and
// status-line refresh its initialisation (see cmd/paneteam/init_test.go).
package mcpserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/team"
)

// Identity is who the server acts as: one member of one team.
type Identity struct {
	Team  team.Team
	Agent string // the member's name as the team's config spells it
	// Lead checks entries in the lead's name when the teammate was started
	// with the lead's verify key (PANETEAM_LEAD_VERIFY_KEY); nil: none are
	// checked, as for a keyless Claude Code teammate.
	Lead *provenance.Verifier
}

// Resolve reads the identity from the environment: PANETEAM_AGENT, the
// team from PANETEAM_TEAM and its root from PANETEAM_ROOT (else
// $CLAUDE_CONFIG_DIR, else ~/.claude), and the lead's verify key from
// PANETEAM_LEAD_VERIFY_KEY. It refuses an unset or reserved agent name, a
// name that is not a member of the team and a malformed key, each with
// the fix.
func Resolve(getenv func(string) string) (Identity, error) {
	agent := strings.TrimSpace(getenv("PANETEAM_AGENT"))
	if agent == "" {
		return Identity{}, errors.New("PANETEAM_AGENT is not set: paneteam mcp acts as one teammate; " +
			"set PANETEAM_AGENT to its member name (spawn-pane --agent sets it for you)")
	}
	// Names are compared in each form (team.SameName): "team.lead" is not
	// the lead to Claude Code's normalisation, but its inbox file is the
	// lead's, which it would read and mark read.
	if team.IsLeadSender(agent) || team.IsLeadName(nil, agent) || team.SameName(agent, "main") {
		return Identity{}, fmt.Errorf("PANETEAM_AGENT=%q is a reserved name: paneteam mcp never speaks as the lead, "+
			"user or system; set PANETEAM_AGENT to the teammate's own member name", agent)
	}
	if err := team.CheckTeammateName(agent); err != nil {
		return Identity{}, fmt.Errorf("PANETEAM_AGENT: %w", err)
	}
	name := strings.TrimSpace(getenv("PANETEAM_TEAM"))
	if name == "" {
		return Identity{}, errors.New("PANETEAM_TEAM is not set: set it to the team's name (spawn-pane --agent sets it for you)")
	}
	root, err := team.Root(getenv("PANETEAM_ROOT"), getenv)
	var re *team.RootError
	if errors.As(err, &re) {
		// The server's own words: it is told its root by the environment.
		return Identity{}, fmt.Errorf("find the team root: %v (set PANETEAM_ROOT, CLAUDE_CONFIG_DIR or HOME)", re.Err)
	}
	if err != nil {
		return Identity{}, err
	}
	t, cfg, err := team.Open(root, name)
	if err != nil {
		return Identity{}, err
	}
	lead, err := provenance.NewVerifier(getenv(provenance.EnvLeadVerifyKey))
	if err != nil {
		return Identity{}, fmt.Errorf("%s: %w: set it to the teammate's --lead-verify-key value, or leave it empty",
			provenance.EnvLeadVerifyKey, err)
	}
	id := Identity{Team: t, Lead: lead}
	if err := id.member(cfg, agent); err != nil {
		return Identity{}, err
	}
	return id, nil
}

// member checks that agent is a member of cfg and records its spelling.
func (id *Identity) member(cfg *team.Config, agent string) error {
	m := cfg.Member(agent)
	if m == nil {
		return fmt.Errorf("PANETEAM_AGENT=%q is not a member of team %s (members: %s): "+
			"spawn the teammate with 'paneteam spawn-pane' first, or fix PANETEAM_AGENT",
			agent, id.Team.Name, strings.Join(cfg.MemberNames(), ", "))
	}
	// The row may be one someone else wrote: a name that is the lead's
	// in another spelling (its leadAgentId's too), or that shares another
	// member's inbox, is not an identity to act as.
	if team.IsLeadName(cfg, m.Name) {
		return fmt.Errorf("PANETEAM_AGENT=%q: member %q of team %s is the lead's name in another spelling (its inbox is the lead's): "+
			"paneteam mcp never speaks as the lead; remove that row and spawn the teammate under another name", agent, m.Name, id.Team.Name)
	}
	for _, o := range cfg.Members {
		if o.Name != m.Name && team.SameName(o.Name, m.Name) {
			return fmt.Errorf("PANETEAM_AGENT=%q: members %q and %q of team %s are one name in two spellings (one inbox): "+
				"paneteam mcp will not act as either; remove the row that is not the teammate's", agent, m.Name, o.Name, id.Team.Name)
		}
	}
	id.Agent = m.Name
	return nil
}
