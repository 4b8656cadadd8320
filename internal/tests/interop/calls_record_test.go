package interop

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// EnvCallsOut names the file TestClaudeTmuxCallsMatchContract writes the
// release's tmux calls to (scripts/claude-release record), in the form
// docs/claude-tmux-calls/ keeps them.
const EnvCallsOut = "PANETEAM_CLAUDE_CALLS_OUT"

// recordedCalls is what one recorded run shows of a release, made
// comparable between runs and releases: the distinct tmux calls, sorted,
// with the server's socket, the private server's pid, the panes' colours
// and the teammate's shell line replaced; then that line's shape, the
// variables it sets and the flags it passes, in order, without values
// (paths, ids, keys and ports vary; which variables and flags there are
// is the release's). Order and counts of calls are left out: the
// teammates' screen code runs beside the lead's calls, and the lead's
// exit kills the panes in parallel. scripts/claude-release compares two
// releases' records section by section.
func recordedCalls(release string, entries []shimLogEntry) string {
	calls, lines := map[string]bool{}, map[string]bool{}
	for _, e := range entries {
		c, line := normaliseCall(e.Argv)
		calls[c] = true
		if line != "" {
			lines[line] = true
		}
	}
	return fmt.Sprintf("# tmux calls of Claude Code %s, recorded by TestClaudeTmuxCallsMatchContract (scripts/claude-release record)\n%s\n"+
		"# the teammate's shell line: the variables it sets, the flags it passes\n%s\n",
		release, strings.Join(sorted(calls), "\n"), strings.Join(sorted(lines), "\n"))
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var (
	swarmServer = regexp.MustCompile(`^claude-swarm-[0-9]+$`)
	envAssign   = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
	colour      = regexp.MustCompile(`fg=[a-z]+`)
)

// normaliseCall is one call as recorded, and the shape of the shell line
// it hands a teammate ("" for a call that hands none).
func normaliseCall(argv []string) (call, line string) {
	var out []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-S" && i+1 < len(argv):
			out = append(out, "-S", "<socket>")
			i++
		case a == "-L" && i+1 < len(argv) && swarmServer.MatchString(argv[i+1]):
			out = append(out, "-L", "claude-swarm-<pid>")
			i++
		case a == "--" && slices.Contains(argv[:i], "respawn-pane"):
			out = append(out, "--", "<line>")
			line = shellLine(strings.Join(argv[i+1:], " "))
			i = len(argv)
		default:
			out = append(out, colour.ReplaceAllString(a, "fg=<colour>"))
		}
	}
	return strings.Join(out, " "), line
}

// shellLine is "vars: A B ...; flags: --x --y ...".
func shellLine(line string) string {
	var vars, flags []string
	for _, w := range strings.Fields(line) {
		w = strings.Trim(w, `'"`)
		switch {
		case envAssign.MatchString(w):
			vars = append(vars, w[:strings.IndexByte(w, '=')])
		case strings.HasPrefix(w, "--"):
			k, _, _ := strings.Cut(w, "=")
			flags = append(flags, k)
		}
	}
	return "vars: " + strings.Join(vars, " ") + "\nflags: " + strings.Join(flags, " ")
}

func TestRecordedCallsAreComparable(t *testing.T) {
	a := []shimLogEntry{
		{Argv: []string{"-S", "/tmp/a/s", "split-window", "-d", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"}},
		{Argv: []string{"-S", "/tmp/a/s", "set-option", "-p", "-t", "%1", "window-style", "bg=default,fg=blue"}},
		{Argv: []string{"-S", "/tmp/a/s", "respawn-pane", "-k", "-t", "%1", "--",
			"cd /tmp/a/p && env CLAUDECODE=1 ANTHROPIC_BASE_URL=http://127.0.0.1:4242 /x/claude --agent-id dora@t1 --agent-color blue --lead-verify-key=abc"}},
		{Argv: []string{"-L", "claude-swarm-4242", "has-session", "-t", "claude-swarm"}},
		{Argv: []string{"show", "-gv", "focus-events"}},
		{Argv: []string{"show", "-gv", "focus-events"}},
	}
	b := []shimLogEntry{
		{Argv: []string{"show", "-gv", "focus-events"}},
		{Argv: []string{"-L", "claude-swarm-99", "has-session", "-t", "claude-swarm"}},
		{Argv: []string{"-S", "/tmp/b/s", "respawn-pane", "-k", "-t", "%1", "--",
			"cd '/tmp/b/p q' && env CLAUDECODE=1 ANTHROPIC_BASE_URL=http://127.0.0.1:1 /y/claude --agent-id eve@t2 --agent-color green --lead-verify-key=def"}},
		{Argv: []string{"-S", "/tmp/b/s", "set-option", "-p", "-t", "%1", "window-style", "bg=default,fg=green"}},
		{Argv: []string{"-S", "/tmp/b/s", "split-window", "-d", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"}},
	}
	ra, rb := recordedCalls("1.0.0", a), recordedCalls("1.0.0", b)
	if ra != rb {
		t.Errorf("two runs of the same calls recorded differently:\n%s\n---\n%s", ra, rb)
	}
	if !strings.Contains(ra, "respawn-pane -k -t %1 -- <line>\n") ||
		!strings.Contains(ra, "\nvars: CLAUDECODE ANTHROPIC_BASE_URL\nflags: --agent-id --agent-color --lead-verify-key\n") {
		t.Errorf("the teammate's line is not kept as its variables and flags:\n%s", ra)
	}
	// A flag the release adds is a difference.
	b[2].Argv[len(b[2].Argv)-1] += " --new-flag x"
	if recordedCalls("1.0.0", b) == ra {
		t.Error("a new flag in the teammate's line made no difference to the record")
	}
}
