package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/term/visible"
)

// A teammate writes every text of a request: its command, file paths, its
// plan, even its id. Shown raw, an escape sequence in it could repaint the
// screen so that the person approving sees another command than the one
// that runs: every text here goes through paneteam's one visible-text rule
// (package visible), and nothing is ever cut short: what is hidden cannot
// be judged.

// pathFields are the input fields of the tools that name a file in it;
// a person judges them by the path. (A switch, not a map, so that no
// paneteam start builds it.)
func pathFields(tool string) []string {
	switch tool {
	case "Edit", "MultiEdit", "Write", "Read":
		return []string{"file_path"}
	case "NotebookEdit":
		return []string{"notebook_path"}
	}
	return nil
}

// Subject is one line saying what r asks, made visible (visible.Line) and never cut: a
// Bash call's whole command, an edit's path, another tool's whole input as
// compact JSON, a sandbox host, or a plan's title and size.
func Subject(r Request) string {
	switch r.Kind {
	case KindPermission:
		return visible.Line(r.ToolName) + ": " + inputSubject(r)
	case KindSandbox:
		return "network host " + visible.Line(r.Host)
	case KindPlan:
		return fmt.Sprintf("plan \"%s\" (%d lines, %d bytes)", PlanTitle(r.PlanContent),
			strings.Count(strings.TrimRight(r.PlanContent, "\n"), "\n")+1, len(r.PlanContent))
	}
	return string(r.Kind)
}

func inputSubject(r Request) string {
	var in map[string]json.RawMessage
	if json.Unmarshal(r.Input, &in) == nil {
		fields := pathFields(r.ToolName)
		if r.ToolName == "Bash" {
			fields = []string{"command"}
		}
		for _, f := range fields {
			var s string
			if json.Unmarshal(in[f], &s) == nil && s != "" {
				return visible.Line(s)
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, r.Input) != nil {
		return visible.Line(string(r.Input))
	}
	return visible.Line(buf.String())
}

// PlanTitle is a plan's first heading, else its first line that is not
// blank, made visible (visible.Line).
func PlanTitle(plan string) string {
	first := ""
	for _, line := range strings.Split(plan, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			return visible.Line(strings.TrimSpace(strings.TrimLeft(t, "#")))
		}
		if first == "" {
			first = t
		}
	}
	return visible.Line(first)
}
