package team

import (
	"regexp"
	"strings"
	"testing"
)

// The hand-written id shapes match exactly what Claude Code's patterns
// match, on the ids themselves and on near misses of each.
func TestIDShapes(t *testing.T) {
	patterns := []struct {
		name string
		re   *regexp.Regexp
		is   func(string) bool
	}{
		{"uuid", regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`), isUUID},
		{"session", regexp.MustCompile(`^(?:(?:session|cse)_(?:vrtx_|bdrk_)?(?:staging_|local_)?01[1-9a-z]{22}|local_[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})$`), isSessionID},
		{"agent", regexp.MustCompile(`^a(?:[\w-]{1,63}-)?[0-9a-f]{16}$`), isAgentID},
	}
	uuid := "0123abcd-4567-89ef-0123-456789abcdef"
	ulid := "01" + strings.Repeat("a1", 11)
	seeds := []string{
		"", "a", "reviewer", "team-lead", uuid, "local_" + uuid, "session_" + ulid, "cse_" + ulid,
		"session_vrtx_" + ulid, "session_bdrk_staging_" + ulid, "cse_local_" + ulid, "session_vrtx_local_" + ulid,
		"session_local_vrtx_" + ulid, "session_" + ulid + "a", "session_" + ulid[:23], "session_01" + strings.Repeat("0", 22),
		"a0123456789abcdef", "aworker-0123456789abcdef", "a-0123456789abcdef", "a--0123456789abcdef",
		"a" + strings.Repeat("w", 63) + "-0123456789abcdef", "a" + strings.Repeat("w", 64) + "-0123456789abcdef",
		"aWork_er-0123456789abcdef", "aw0123456789abcdef", "a0123456789abcdeF", "b0123456789abcdef",
		"local_" + strings.ToUpper(uuid), "local_" + uuid + "0", strings.Replace(uuid, "-", "x", 1),
	}
	var inputs []string
	for _, s := range seeds {
		inputs = append(inputs, s)
		// Every one-byte change and cut of each seed.
		for i := 0; i < len(s); i++ {
			for _, c := range []byte{'0', 'f', 'g', 'z', '-', '_', 'A', '1'} {
				inputs = append(inputs, s[:i]+string(c)+s[i+1:])
			}
			inputs = append(inputs, s[:i], s[i:], s[:i]+s[i+1:])
		}
	}
	for _, p := range patterns {
		matched := 0
		for _, in := range inputs {
			want := p.re.MatchString(in)
			if got := p.is(in); got != want {
				t.Errorf("%s(%q) = %v, the pattern says %v", p.name, in, got, want)
			}
			if want {
				matched++
			}
		}
		if matched < 3 {
			t.Errorf("%s: only %d inputs match; the test should try matches too", p.name, matched)
		}
	}
}
