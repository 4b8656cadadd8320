package team

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LeadName is the name Claude Code gives every team's lead.
const LeadName = "team-lead"

// Root returns the folder that holds teams/ and tasks/: the explicit value
// when given (--root, PANETEAM_ROOT), else $CLAUDE_CONFIG_DIR, else
// ~/.claude, as Claude Code resolves it.
func Root(explicit string, getenv func(string) string) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the team root: %w (set --root or PANETEAM_ROOT)", err)
		}
		home = h
	}
	return filepath.Join(home, ".claude"), nil
}

// SanitizeTeam is Claude Code's sanitiser for the team directory and its
// config: every character outside [a-zA-Z0-9] becomes '-', then the result
// is lower-cased ("My Team" -> "my-team").
func SanitizeTeam(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && isAlnum(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteString(dashes(r))
		}
	}
	return strings.ToLower(b.String())
}

// SanitizePath is Claude Code's sanitiser for inbox and task file and
// folder names: every character outside [a-zA-Z0-9_-] becomes '-', case
// kept. Its output can never contain '/', '.' or "..".
func SanitizePath(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (isAlnum(byte(r)) || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteString(dashes(r))
		}
	}
	return b.String()
}

// dashes is what Claude Code's replace(/[^...]/g, '-') makes of r: the
// regex works on UTF-16 code units, so a character outside the Basic
// Multilingual Plane (an emoji) becomes two dashes.
func dashes(r rune) string {
	if r > 0xFFFF {
		return "--"
	}
	return "-"
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// CheckName refuses names that sanitise to nothing useful, naming the fix.
func CheckName(kind, name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%s name is empty: give a name such as \"reviewer\"", kind)
	}
	if strings.Trim(SanitizePath(name), "-") == "" {
		return fmt.Errorf("%s name %q has no letters or digits: use letters, digits, '-' or '_'", kind, name)
	}
	return nil
}

// MemberName is the name paneteam stores for a new member: Claude Code
// replaces '@' (agent ids are name@team); paneteam also applies the path
// sanitiser so the member's name and its inbox file name are the same.
func MemberName(name string) string {
	return SanitizePath(strings.ReplaceAll(strings.TrimSpace(name), "@", "-"))
}

// AgentID is "<name>@<team>".
func AgentID(name, team string) string { return name + "@" + team }
