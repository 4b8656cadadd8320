// Package claudeversion tells which Claude Code release a binary is and
// what its teammate command line looks like at that release. Claude
// Code's lead changed the flags it gives a teammate several times; a
// teammate started by paneteam gets the flags its own release expects.
//
// The cut-overs were found by installing each release from npm
// (@anthropic-ai/claude-code up to 2.1.112, a Node bundle in cli.js; its
// native build in @anthropic-ai/claude-code-linux-x64 since 2.1.113) and
// reading the function that builds the teammate command line.
package claudeversion

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/paneteam/paneteam/internal/term/shorten"
)

// Version is a Claude Code release, major.minor.patch.
type Version struct{ Major, Minor, Patch int }

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less orders releases.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// AtLeast reports v >= o.
func (v Version) AtLeast(o Version) bool { return !v.Less(o) }

// IsZero reports an unknown version.
func (v Version) IsZero() bool { return v == Version{} }

var versionPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*v?(\d+)\.(\d+)\.(\d+)\b`) })

// Parse reads `claude --version` output, "2.1.330 (Claude Code)".
func Parse(s string) (Version, error) {
	m := versionPattern().FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("%q is not a Claude Code version (want e.g. \"2.1.330 (Claude Code)\")", shorten.FirstLine(s, 80))
	}
	var v Version
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	v.Patch, _ = strconv.Atoi(m[3])
	return v, nil
}

// The releases where the teammate command line changed.
var (
	// NoTeammateMode: from 2.1.202 the lead no longer passes
	// --teammate-mode (2.1.201 still pushes "--teammate-mode <mode>"; the
	// option itself is still accepted).
	NoTeammateMode = Version{2, 1, 202}
	// PermissionFlagAlways: from 2.1.317 the lead always passes a
	// permission flag, "--permission-mode default|plan|dontAsk" included,
	// and plan mode as "--permission-mode plan" besides
	// --plan-mode-required. Before, only bypass (as
	// --dangerously-skip-permissions), acceptEdits and auto were passed,
	// and nothing with --plan-mode-required. A 2.1.330 teammate started
	// without the flag ran Bash without asking (observed).
	PermissionFlagAlways = Version{2, 1, 317}
	// LeadVerifyKey: 2.1.323 is the first release that accepts
	// --lead-verify-key and checks lead_sig (docs/PROTOCOL.md §11, §16);
	// an older one would refuse the unknown flag.
	LeadVerifyKey = Version{2, 1, 323}
	// Tested is the release paneteam's protocol notes and real-binary tests
	// describe; an unknown version is taken to be it.
	Tested = Version{2, 1, 332}
)

// Features is what a release's teammate command line has.
type Features struct {
	TeammateMode     bool // pass --teammate-mode
	PermissionAlways bool // always pass a permission flag
	LeadVerifyKey    bool // --lead-verify-key is understood: signing works
}

// Features of v; an unknown (zero) version has Tested's.
func (v Version) Features() Features {
	if v.IsZero() {
		v = Tested
	}
	return Features{
		TeammateMode:     v.Less(NoTeammateMode),
		PermissionAlways: v.AtLeast(PermissionFlagAlways),
		LeadVerifyKey:    v.AtLeast(LeadVerifyKey),
	}
}
