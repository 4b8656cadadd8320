package approval

import (
	"errors"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
)

// requestDigest is the input_digest Claude Code's lead computes for a
// permission request (docs/PROTOCOL.md §9), MCP
// skills included: provenance computes it from the frame as the teammate
// wrote it.
func requestDigest(r Request) (string, error) {
	if len(r.Input) == 0 {
		return "", errors.New("the request has no tool input to digest")
	}
	return provenance.RequestDigest(r.Frame)
}

// planDigest is the planDigest of a plan_approval_request (§9).
func planDigest(content string) string { return provenance.PlanDigest(content) }
