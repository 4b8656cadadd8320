package approval

import (
	"encoding/json"
	"errors"
)

// The digests that bind an answer to the request it answers (Claude Code
// 2.1.330, PROTOCOL-2.1.330.md §7). Package provenance owns them; these
// seams keep exactly its signatures:
//
//	provenance.InputDigest(toolName string, input json.RawMessage) (string, error)
//	provenance.PlanDigest(content string) string
var (
	inputDigest = tempInputDigest
	planDigest  = tempPlanDigest
)

// requestDigest is the input_digest Claude Code's lead computes for a
// permission request: of tool_name and input, or for an MCP skill of
// "<tool_name>#mcp_skill" and {input, mcp_server, mcp_skill, description,
// permission_suggestions} as the frame holds them (absent ones left out,
// as JSON.stringify leaves out undefined).
func requestDigest(r Request) (string, error) {
	if len(r.Input) == 0 {
		return "", errors.New("the request has no tool input to digest")
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(r.Frame, &f); err != nil {
		return "", err
	}
	var kind string
	_ = json.Unmarshal(f["tool_kind"], &kind)
	if _, skill := f["mcp_skill"]; kind != "mcp_skill" && !skill {
		return inputDigest(r.ToolName, r.Input)
	}
	wire := map[string]json.RawMessage{}
	for _, k := range []string{"input", "mcp_server", "mcp_skill", "description", "permission_suggestions"} {
		if v, ok := f[k]; ok {
			wire[k] = v
		}
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return "", err
	}
	return inputDigest(r.ToolName+"#mcp_skill", b)
}
