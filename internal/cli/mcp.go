package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"

	ucli "github.com/urfave/cli/v3"
)

func mcpCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "mcp",
		Usage: "serve the team as MCP tools on stdin/stdout, as one teammate (for agent CLIs)",
		Description: `An MCP server on stdio that gives an agent CLI its team as tools, acting
always as the teammate PANETEAM_AGENT names in the team PANETEAM_TEAM:
send_message {to, text} (a member, or "*" for all others), read_inbox
(unread first; marks what it returns read), team_status, list_tasks,
claim_task {task_id} and update_task {task_id, status, note}. Messages and
tasks are written exactly as Claude Code writes them, so a Claude Code lead
reads them as its own teammates'. It refuses to start when PANETEAM_AGENT
is unset, not a member of the team, or the lead's name.
PANETEAM_LEAD_VERIFY_KEY, when set, is the teammate's --lead-verify-key:
read_inbox then marks each message in the lead's name verified or not, and
opens an unverified one's text with a warning.

'paneteam spawn-pane --agent codex|gemini|opencode' registers it for the
teammate's run. By hand, for example with Codex:

    PANETEAM_TEAM=review PANETEAM_AGENT=coder \
      codex -c 'mcp_servers.team={command="paneteam",args=["mcp"]}'

The server is the program paneteam-mcp, installed beside paneteam
('go install github.com/paneteam/paneteam/cmd/...@latest' installs both);
PANETEAM_MCP_BIN names another.`,
		Flags: []ucli.Flag{teamFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readMCPOptions(c)
			if err != nil {
				return err
			}
			return runMCP(env, o)
		},
	}
}

// mcpOptions are mcp's flags: they name the team, as PANETEAM_TEAM and
// PANETEAM_ROOT do for the server.
type mcpOptions struct {
	Team string // --team, or PANETEAM_TEAM
	Root string // --root, or PANETEAM_ROOT
}

func readMCPOptions(c *ucli.Command) (mcpOptions, error) {
	if c.NArg() > 0 {
		return mcpOptions{}, usagef("mcp takes no arguments (got %q): the teammate comes from PANETEAM_TEAM and PANETEAM_AGENT", c.Args().Slice())
	}
	return mcpOptions{Team: readFlags(c).String("team"), Root: readFlags(c).String("root")}, nil
}

// runMCP replaces this process with the MCP server, in the team named.
func runMCP(env Env, o mcpOptions) error {
	bin, err := mcpServerPath(env)
	if err != nil {
		return err
	}
	vars := map[string]string{}
	for k, v := range env.Vars {
		vars[k] = v
	}
	if o.Team != "" {
		vars["PANETEAM_TEAM"] = o.Team
	}
	if o.Root != "" {
		root, err := filepath.Abs(o.Root)
		if err != nil {
			return fmt.Errorf("--root: %w", err)
		}
		vars["PANETEAM_ROOT"] = root
	}
	// The server takes this process's place: the agent CLI's
	// signals and pipes reach it directly, and nothing is left
	// behind when it ends.
	err = syscall.Exec(bin, []string{bin}, Env{Vars: vars}.Environ())
	return fmt.Errorf("start the MCP server %s: %w", bin, err)
}

// mcpServerName is the MCP server's program.
const mcpServerName = "paneteam-mcp"

// mcpServerPath finds the MCP server's program: $PANETEAM_MCP_BIN, else
// the one built with this paneteam (beside it, named as it is with
// "paneteam" as "paneteam-mcp": paneteam-race has paneteam-mcp-race), else
// paneteam-mcp beside it, else on PATH.
func mcpServerPath(env Env) (string, error) {
	return companionPath(env, mcpServerName, "PANETEAM_MCP_BIN")
}
