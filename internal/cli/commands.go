package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v3"
)

// commandTable lists every subcommand: the name it is called by and the
// constructor in its own file. Only the command being run is built (issue
// 15: every keybinding and status-line refresh is one process, and
// building every command's flags and help is paid at each start); help
// listings and shell completion of command names build them all.
//
// To add a command, add one line here: {"name", nameCommand}, where
// nameCommand(env) returns the *ucli.Command whose Name is that name
// (TestCommandTableNames checks that they agree, and
// TestEveryCommandIsInTheTable that no constructor is left out).
// (A function, not a variable: prompt runs paneteam's own commands, so
// the table refers to itself through Main.)
func commandTable() []commandEntry {
	return []commandEntry{
		{"team-create", teamCreateCommand},
		{"spawn-pane", spawnPaneCommand},
		{"send", sendCommand},
		{"inbox", inboxCommand},
		{"inbox-watch", inboxWatchCommand},
		{"status", statusCommand},
		{"budget", budgetCommand},
		{"task", taskCommand},
		{"kill-pane", killPaneCommand},
		{"reconnect", reconnectCommand},
		{"resume", resumeCommand},
		{"hide", hideCommand},
		{"show", showRequestOrPaneCommand},
		{"attach", attachCommand},
		{"logs", logsCommand},
		{"teammate", teammateCommand},
		{"shutdown", shutdownCommand},
		{"cleanup", cleanupCommand},
		{"worktrees", worktreesCommand},
		{"iterm2", iterm2Command},
		{"demo", demoCommand},
		{"pty-host", hostCommand},
		{"requests", requestsCommand},
		{"approve", approveCommand},
		{"deny", denyCommand},
		{"dashboard", dashboardCommand},
		{"web", webCommand},
		{"monitor", monitorCommand},
		{"wait", waitCommand},
		{"prompt", promptCommand},
		{"claude", claudeCommand},
		{"remote", remoteCommand},
		{"mcp", mcpCommand},
		{"agents", agentsCommand},
		{"agent-hook", agentHookCommand},
		{"shim-gate", shimGateCommand},
		{RouterCommand, teammateClaudeCommand},
		{"pane-exec", paneExecCommand},
		{GuardCommand, budgetGuardCommand},
	}
}

type commandEntry struct {
	name  string
	build func(Env) *ucli.Command
}

// commands builds every subcommand, in the order help lists them.
func commands(env Env) []*ucli.Command {
	out := make([]*ucli.Command, 0, len(commandTable()))
	for _, c := range commandTable() {
		out = append(out, c.build(env))
	}
	return out
}

// commandsFor builds what a run with args needs: only the named command
// when args name one of the table's, none for a bare --version, and
// every command otherwise (help, a listing, completion of command names,
// or a name that is not a command, which is then reported as such).
func commandsFor(env Env, args []string) []*ucli.Command {
	name, version := commandName(args)
	if name == "" && version {
		return nil
	}
	for _, c := range commandTable() {
		if c.name == name {
			return []*ucli.Command{c.build(env)}
		}
	}
	return commands(env)
}

// commandName finds the first positional argument after the global flags
// (args[0] is the program), and whether --version (-v) came before it.
func commandName(args []string) (name string, version bool) {
	globals := globalFlags()
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", version
		case !isFlag(a):
			return a, version
		}
		switch strings.TrimLeft(a, "-") {
		case "version", "v":
			version = true
		case "help", "h", "generate-shell-completion", "generate-bash-completion":
			return "", false // urfave/cli prints help or completions: it needs them all
		}
		if takesValue(globals, a) {
			i++ // its value follows
		}
	}
	return "", version
}
