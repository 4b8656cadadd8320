package team

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
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
			return "", &RootError{Err: err}
		}
		home = h
	}
	return filepath.Join(home, ".claude"), nil
}

// RootError is a team root that cannot be found: none was given and
// there is no home folder to find ~/.claude in.
type RootError struct{ Err error }

func (e *RootError) Error() string {
	return fmt.Sprintf("find the team root: %v (name the root, or set CLAUDE_CONFIG_DIR or HOME)", e.Err)
}

func (e *RootError) Unwrap() error { return e.Err }

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
// A member name must also pass CheckTeammateName (reserved.go).
func CheckName(kind, name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%s name is empty: give a name such as \"reviewer\"", kind)
	}
	if kind == "member" {
		if err := CheckTeammateName(name); err != nil {
			return err
		}
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

// Names Claude Code reserves (docs/PROTOCOL.md §15): "main"
// addresses the main conversation; team-lead, user and system are the
// names a lead's entries come from, which a keyed teammate believes only
// when signed (§11).
var reservedNames = []string{"main", LeadName, "user", "system"}

// NormalizeName is Claude Code's normalisation of a sender or
// teammate name for its reserved-name checks: Unicode NFKC, control,
// format and surrogate characters removed (whitespace kept), trimmed,
// lower-cased, runs of whitespace as one '-'. So "Team Lead", "TEAM-LEAD"
// and "team\u200b-lead" all normalise to "team-lead". (Claude Code also
// folds parenthesised letter forms first; NFKC covers the common ones.)
func NormalizeName(name string) string {
	s := norm.NFKC.String(name)
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return r
		}
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cs, r) {
			return -1
		}
		return r
	}, s)
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), "-")
}

// IsLeadSender reports whether a sender name counts as the lead for
// Claude Code's provenance (§15): it normalises to team-lead, user
// or system. Such an entry to a keyed teammate is believed only when
// signed, and only the exact names are ever signed.
func IsLeadSender(from string) bool {
	switch NormalizeName(from) {
	case LeadName, "user", "system":
		return true
	}
	return false
}

// Two spellings of one name. Claude Code compares names for its
// reserved-name checks in NormalizeName's form, and names a member's
// inbox file in SanitizePath's (team.InboxPath): "team.lead" is not
// "team-lead" to the first and is to the second, so a member of that name
// reads and writes the lead's own team-lead.json. Every check of who a
// name is compares it in each form.

// nameForms are the forms a name is compared in: Claude Code's
// normalised form, its inbox file's, and the inbox file of the normalised
// form ("team\u200b.lead"). The inbox forms are case-folded: the default
// file systems of macOS and Windows hold "Team-Lead.json" and
// "team-lead.json" as one file.
func nameForms(name string) [3]string {
	n := NormalizeName(name)
	return [3]string{n, inboxForm(name), inboxForm(n)}
}

func inboxForm(name string) string { return strings.ToLower(SanitizePath(name)) }

// SameName reports whether a and b name one recipient in some form: the
// same normalised name, or the same inbox file.
func SameName(a, b string) bool { return sharedForm(a, b) != "" }

// sharedForm is a form a and b have in common, "" when none.
func sharedForm(a, b string) string {
	fa, fb := nameForms(a), nameForms(b)
	for _, x := range fa {
		for _, y := range fb {
			if x != "" && x == y {
				return x
			}
		}
	}
	return ""
}

// IsLeadName reports whether name is the lead's in some form: LeadName,
// or the name cfg's leadAgentId gives its lead (cfg may be nil). A
// member so named would read and mark read the lead's inbox.
func IsLeadName(cfg *Config, name string) bool {
	return SameName(name, LeadName) || SameName(name, cfg.LeadAgentName())
}

// The shapes of Claude Code's own ids, matched by hand: compiling them as
// regular expressions cost every spawn-pane about 1.3M of its 7.1M
// instructions (bench/RESULTS.md); TestIDShapes holds them to the
// patterns they stand for.

// isUUID is ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isLowerHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// isSessionID is Claude Code's session id:
// ^(?:(?:session|cse)_(?:vrtx_|bdrk_)?(?:staging_|local_)?01[1-9a-z]{22}|local_<uuid>)$.
func isSessionID(s string) bool {
	if rest, ok := strings.CutPrefix(s, "local_"); ok && isUUID(rest) {
		return true
	}
	rest, ok := strings.CutPrefix(s, "session_")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "cse_"); !ok {
			return false
		}
	}
	// Each optional part starts with a letter and what follows them with
	// "01", so taking a part whenever it is there decides the match.
	for _, opts := range [][]string{{"vrtx_", "bdrk_"}, {"staging_", "local_"}} {
		for _, o := range opts {
			if r, ok := strings.CutPrefix(rest, o); ok {
				rest = r
				break
			}
		}
	}
	tail, ok := strings.CutPrefix(rest, "01")
	if !ok || len(tail) != 22 {
		return false
	}
	for i := 0; i < len(tail); i++ {
		if c := tail[i]; !(c >= '1' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// isAgentID is Claude Code's agent id: ^a(?:[\w-]{1,63}-)?[0-9a-f]{16}$.
func isAgentID(s string) bool {
	rest, ok := strings.CutPrefix(s, "a")
	if !ok || len(rest) < 16 {
		return false
	}
	hex, mid := rest[len(rest)-16:], rest[:len(rest)-16]
	for i := 0; i < len(hex); i++ {
		if !isLowerHex(hex[i]) {
			return false
		}
	}
	if mid == "" {
		return true
	}
	word, ok := strings.CutSuffix(mid, "-")
	if !ok || len(word) < 1 || len(word) > 63 {
		return false
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// CheckTeammateName refuses a name Claude Code would refuse for a
// teammate (§15), saying why and what to do: control characters, "main",
// anything normalising to team-lead, user or system, and names shaped like
// an agent id (name@team, Claude's a<16 hex>) or a session id (a UUID,
// session_01…), which already address a recipient.
func CheckTeammateName(name string) error {
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("teammate name %q has a control character: use letters, digits, '-' or '_'", name)
		}
	}
	n := NormalizeName(name)
	for _, r := range reservedNames {
		if SameName(name, r) {
			return fmt.Errorf("teammate name %q is reserved: %q is %s; choose another name, such as \"reviewer\"", name, r, reservedWhy(r))
		}
	}
	if strings.Contains(name, "@") {
		return fmt.Errorf("teammate name %q has the shape of an agent id (name@team): give the name alone, without '@'", name)
	}
	if isUUID(n) || isSessionID(n) || isAgentID(n) {
		return fmt.Errorf("teammate name %q has the shape of a session or agent id, which Claude Code reads as an address: choose a plain name such as \"reviewer\"", name)
	}
	return nil
}

func reservedWhy(r string) string {
	if r == "main" {
		return "how Claude Code addresses its main conversation"
	}
	return "a name only the team's lead speaks as (in any spelling)"
}
