package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/encoding/jsjson"
)

// InputDigest is the input_digest a permission_response binds its verdict
// to (Claude Code, docs/PROTOCOL.md §9): lower-case hex SHA-256
// of the tool name, one 0x00 byte, and the canonical JSON of input (keys
// sorted by UTF-16 code units to depth 32, JavaScript number and string
// formatting). A teammate refuses a verdict whose digest differs from the
// one it computed from its own request.
func InputDigest(toolName string, input json.RawMessage) (string, error) {
	v, err := jsjson.Parse(input)
	if err != nil {
		return "", fmt.Errorf("tool input of %s: %w", toolName, err)
	}
	return digestOf(toolName, v)
}

// RequestDigest is the input_digest of a permission_request frame as the
// lead computes it from the request itself: for an MCP skill
// (tool_kind "mcp_skill" or an mcp_skill field) the name hashed is
// "<tool_name>#mcp_skill" and the value {input, mcp_server, mcp_skill,
// description, permission_suggestions}, absent members left out as
// JSON.stringify leaves out undefined; otherwise InputDigest of tool_name
// and input.
func RequestDigest(frame json.RawMessage) (string, error) {
	v, err := jsjson.Parse(frame)
	if err != nil {
		return "", fmt.Errorf("permission request: %w", err)
	}
	req, ok := v.(*jsjson.Object)
	if !ok {
		return "", errors.New("permission request is not a JSON object")
	}
	nameV, _ := req.Get("tool_name")
	name, ok := nameV.(string)
	if !ok {
		return "", errors.New("permission request has no tool_name")
	}
	input, ok := req.Get("input")
	if !ok {
		return "", fmt.Errorf("permission request for %s has no input", name)
	}
	kind, _ := req.Get("tool_kind")
	_, skill := req.Get("mcp_skill")
	if kind != "mcp_skill" && !skill {
		return digestOf(name, input)
	}
	wire := &jsjson.Object{}
	for _, k := range []string{"input", "mcp_server", "mcp_skill", "description", "permission_suggestions"} {
		if x, ok := req.Get(k); ok {
			wire.Members = append(wire.Members, jsjson.Member{Key: k, Value: x})
		}
	}
	return digestOf(name+"#mcp_skill", wire)
}

func digestOf(name string, v any) (string, error) {
	canon, err := jsjson.Marshal(jsjson.Canonical(v))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	// Node hashes a string as UTF-8, a lone surrogate as U+FFFD.
	h.Write([]byte(strings.ToValidUTF8(name, "\uFFFD")))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// PlanDigest is the planDigest of a plan_approval_request (§9): lower-case
// hex SHA-256 of the UTF-8 bytes of exactly planContent.
func PlanDigest(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}
