// Package hostile runs every command that reads a team against team
// folders someone else has written badly or on purpose: links planted in
// place of files and folders, pipes, entries of the wrong type, huge and
// deeply nested files, terminal escapes (docs/PROTOCOL.md §2, §3, §6).
package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestHostileTeamFolders plants one hostile thing per case and runs every
// command against it. Each must end within its bound without a panic,
// change nothing outside the root, name what it refuses, and do for the
// team's good entries what it does in an untouched team.
func TestHostileTeamFolders(t *testing.T) {
	testutil.Binary(t)
	testutil.MCPBinary(t)
	// What every command does in an untouched team, whichever cases run.
	baseline := map[string]result{}
	t.Run("untouched", func(t *testing.T) {
		f := newFolder(t)
		f.before = f.snapshot()
		for _, c := range commands {
			r := f.do(c)
			baseline[c.key] = r
			check(t, f, hostileCase{name: "untouched"}, c, r, r)
		}
	})
	if len(baseline) < len(commands) {
		t.Fatal("the untouched team did not go through every command")
	}
	for _, hc := range cases {
		t.Run(hc.name, func(t *testing.T) {
			f := newFolder(t)
			hc.plant(f)
			f.before = f.snapshot()
			for _, c := range commands {
				check(t, f, hc, c, f.do(c), baseline[c.key])
			}
		})
	}
}

func check(t *testing.T, f *folder, hc hostileCase, c command, r, base result) {
	t.Helper()
	what := "paneteam " + c.key
	if os.Getenv("HOSTILE_MATRIX") != "" {
		t.Logf("%-28s exit %d timeout=%v %s", c.key, r.code, r.timedOut, firstLine(r.stderr))
	}
	// What changed outside the root is never pending: it fails at once.
	if ch := f.outsideChanges(); len(ch) > 0 {
		t.Errorf("%s changed what lies outside the root:\n%s", what, strings.Join(ch, "\n"))
		f.before = f.snapshot()
	}
	problems := judge(hc, c, r, base)
	why, pending := hc.pending[c.key]
	switch {
	case pending && len(problems) == 0:
		t.Errorf("%s now does all that is asked (%s): drop it from the case's pending", what, why)
	case pending:
		t.Logf("pending (%s): %s: %s", why, what, strings.Join(problems, "; "))
	default:
		for _, p := range problems {
			t.Errorf("%s %s:\n%s", what, p, cut(r.all()))
		}
	}
}

// judge lists what c did wrong with the case planted.
func judge(hc hostileCase, c command, r, base result) []string {
	var out []string
	named := filepath.FromSlash(hc.named)
	switch {
	case r.timedOut && c.watcher && breaks(hc, c.key):
		// A watcher whose inbox cannot be read warns and keeps watching,
		// as it does while an inbox does not exist yet: the warning must
		// name what it cannot read.
		if !strings.Contains(r.stderr, named) {
			out = append(out, "kept watching without naming "+named)
		}
	case r.timedOut:
		out = append(out, "did not end within its bound")
	}
	for _, crash := range []string{"panic:", "fatal error:", "goroutine "} {
		if strings.Contains(r.stderr, crash) {
			out = append(out, "crashed")
		}
	}
	if hc.named != "" && r.code != 0 && r.code != base.code && !strings.Contains(r.all(), named) {
		out = append(out, fmt.Sprintf("failed (exit %d) without naming %s", r.code, named))
	}
	if slices.Contains(hc.mustName, c.key) && !strings.Contains(r.all(), named) {
		out = append(out, "did not name "+named)
	}
	if !breaks(hc, c.key) && hc.name != "untouched" {
		if r.code != base.code {
			out = append(out, fmt.Sprintf("exit %d, where the untouched team gives %d", r.code, base.code))
		}
		if c.good != "" && strings.Contains(base.stdout, c.good) && !strings.Contains(r.stdout, c.good) {
			out = append(out, fmt.Sprintf("no longer shows the good %q", c.good))
		}
	}
	// An MCP tool's answer goes to an agent, not to a terminal.
	if raw := rawControl(r.all()); raw != "" && c.tool == "" {
		out = append(out, "printed "+raw+" raw to the terminal: "+strconv.Quote(cut(r.all())))
	}
	return out
}

func breaks(hc hostileCase, key string) bool {
	return slices.Contains(hc.breaks, "*") || slices.Contains(hc.breaks, key)
}

// rawControl names the first byte or character a terminal would act on
// rather than show: C0 controls but tab and newline, DEL, C1 controls and
// the bidirectional overrides.
func rawControl(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			// Invalid UTF-8 passes through: a terminal shows it as such.
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f),
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("U+%04X", r)
		}
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return cut(s)
}

// cut keeps a failure message readable when a command printed 50 MB.
func cut(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}
