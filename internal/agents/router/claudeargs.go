package router

import (
	"fmt"
	"slices"
	"strings"
)

// Teammate is what Claude Code's lead put on a pane teammate's command
// line (after the program): who it is, its team, and the lead's own
// settings it passes on.
type Teammate struct {
	AgentID, Name, Team, Color string
	ParentSessionID            string
	// LeadVerifyKey is "<stamp>.<public key>": entries in the lead's
	// name are to be believed only when signed with it.
	LeadVerifyKey    string
	PlanModeRequired bool
	// AgentType is the Agent tool's subagent_type ("" for none).
	AgentType string
	// PermissionMode is Claude Code's mode for the teammate, with
	// --dangerously-skip-permissions read as bypassPermissions ("" when
	// none was given).
	PermissionMode string
	Model          string
	Effort         string
	SessionID      string
	// Deny are the deny rules (--disallowed-tools), Allow the allow
	// rules (--allowed-tools), Tools the only tools allowed (--tools).
	Deny, Allow, Tools []string
	// Ignorable are flags (with their values) that configure Claude Code
	// itself: settings, plugins, MCP servers, more folders.
	Ignorable []Flag
	// Args are all the arguments, as given.
	Args []string
}

// Flag is one flag and its values.
type Flag struct {
	Name   string
	Values []string
}

func (f Flag) String() string {
	if len(f.Values) == 0 {
		return f.Name
	}
	return f.Name + " " + strings.Join(f.Values, " ")
}

// UnknownFlagError is a flag of Claude Code's the router does not know:
// a teammate is never started with one of the lead's settings dropped.
type UnknownFlagError struct{ Flag string }

func (e *UnknownFlagError) Error() string {
	return fmt.Sprintf("Claude Code's lead passed %s, which paneteam does not know how to carry to another CLI: "+
		"start the lead without it, or ask for a Claude teammate", e.Flag)
}

// The flags of a teammate's command line, as Claude Code writes them
// (docs/PROTOCOL.md §14: its teammate launch, and its parser's tables of
// flags that take one value or a list).
var (
	boolFlags = []string{"--plan-mode-required", "--dangerously-skip-permissions"}
	// ignorableBool are on/off flags that configure Claude Code itself.
	ignorableBool = []string{"--strict-mcp-config", "--include-unsupported-models", "--chrome", "--no-chrome"}
	// valueFlags take one value, as "--flag value" or "--flag=value".
	valueFlags = []string{"--agent-id", "--agent-name", "--team-name", "--agent-color", "--parent-session-id",
		"--lead-verify-key", "--agent-type", "--permission-mode", "--model", "--effort", "--session-id",
		"--settings", "--managed-settings", "--plugin-dir", "--plugin-dir-no-mcp", "--plugin-url",
		"--project-config-root", "--inherit-permission-mode", "--proactivity", "--setting-sources"}
	// listFlags take every argument up to the next flag.
	listFlags = []string{"--disallowed-tools", "--disallowedTools", "--allowed-tools", "--allowedTools", "--tools",
		"--mcp-config", "--add-dir"}
	// ignorable configure Claude Code itself; another CLI has no use for
	// them, and a warning names each.
	ignorable = []string{"--settings", "--managed-settings", "--plugin-dir", "--plugin-dir-no-mcp", "--plugin-url",
		"--project-config-root", "--mcp-config", "--add-dir", "--inherit-permission-mode", "--proactivity", "--setting-sources"}
)

// ParseClaudeArgs reads a pane teammate's arguments (the program not
// included). A flag it does not know is an *UnknownFlagError.
func ParseClaudeArgs(args []string) (Teammate, error) {
	t := Teammate{Args: slices.Clone(args)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, inline, hasInline := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			return t, fmt.Errorf("unexpected argument %q on the teammate's command line", a)
		}
		switch {
		case slices.Contains(ignorableBool, a):
			t.Ignorable = append(t.Ignorable, Flag{Name: a})
			continue
		case a == "--restricted":
			// Claude's restricted mode limits what the teammate may do in
			// ways another CLI has no equivalent for.
			return t, &UnknownFlagError{Flag: a}
		case slices.Contains(boolFlags, a):
			if a == "--plan-mode-required" {
				t.PlanModeRequired = true
			} else {
				t.PermissionMode = "bypassPermissions"
			}
			continue
		case slices.Contains(valueFlags, name):
			v := inline
			if !hasInline {
				if i+1 >= len(args) {
					return t, fmt.Errorf("%s has no value on the teammate's command line", name)
				}
				i++
				v = args[i]
			}
			t.set(name, v)
		case slices.Contains(listFlags, name):
			var vs []string
			if hasInline {
				vs = append(vs, inline)
			}
			for i+1 < len(args) && !isFlag(args[i+1]) {
				i++
				vs = append(vs, args[i])
			}
			t.setList(name, vs)
		default:
			return t, &UnknownFlagError{Flag: name}
		}
	}
	if t.Name == "" || t.Team == "" {
		return t, fmt.Errorf("the teammate's command line has no --agent-name and --team-name: it was not started by Claude Code's lead")
	}
	return t, nil
}

func isFlag(s string) bool { return len(s) > 1 && strings.HasPrefix(s, "-") }

func (t *Teammate) set(name, v string) {
	switch name {
	case "--agent-id":
		t.AgentID = v
	case "--agent-name":
		t.Name = v
	case "--team-name":
		t.Team = v
	case "--agent-color":
		t.Color = v
	case "--parent-session-id":
		t.ParentSessionID = v
	case "--lead-verify-key":
		t.LeadVerifyKey = v
	case "--agent-type":
		t.AgentType = v
	case "--permission-mode":
		t.PermissionMode = v
	case "--model":
		t.Model = v
	case "--effort":
		t.Effort = v
	case "--session-id":
		t.SessionID = v
	default:
		t.Ignorable = append(t.Ignorable, Flag{Name: name, Values: []string{v}})
	}
}

func (t *Teammate) setList(name string, vs []string) {
	// A rule list may come as one argument, comma- or space-separated.
	var items []string
	for _, v := range vs {
		items = append(items, splitRules(v)...)
	}
	switch name {
	case "--disallowed-tools", "--disallowedTools":
		t.Deny = append(t.Deny, items...)
	case "--allowed-tools", "--allowedTools":
		t.Allow = append(t.Allow, items...)
	case "--tools":
		t.Tools = append(t.Tools, items...)
	default:
		t.Ignorable = append(t.Ignorable, Flag{Name: name, Values: vs})
	}
}

// splitRules splits "Bash(git log:*),Edit Write" at commas and spaces
// outside parentheses, as Claude Code reads a rule list.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ',' || r == ' ') && depth == 0:
			if p := strings.TrimSpace(s[start:i]); p != "" {
				out = append(out, p)
			}
			start = i + 1
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}
