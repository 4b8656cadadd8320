package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Last is the latest thing a request tells the model, in any of the three
// APIs: a user's text, or the output of a tool call.
type Last struct {
	UserText   string
	CallID     string // the tool call answered ("" for a user text)
	ToolName   string
	ToolOutput string
}

// Last reads the request's latest item, whatever its API.
func (r *Request) Last() Last {
	switch {
	case r.JSON["input"] != nil: // Responses API
		it := r.LastItem()
		if it["type"] == "function_call_output" {
			id, _ := it["call_id"].(string)
			out, _ := r.ToolOutput(id)
			return Last{CallID: id, ToolOutput: out}
		}
		if t := r.UserTexts(); len(t) > 0 {
			return Last{UserText: t[len(t)-1]}
		}
	case r.JSON["contents"] != nil: // Gemini
		contents, _ := r.JSON["contents"].([]any)
		if len(contents) == 0 {
			return Last{}
		}
		c, _ := contents[len(contents)-1].(map[string]any)
		parts, _ := c["parts"].([]any)
		var text []string
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if fr, ok := pm["functionResponse"].(map[string]any); ok {
				id, _ := fr["id"].(string)
				name, _ := fr["name"].(string)
				b, _ := json.Marshal(fr["response"])
				return Last{CallID: id, ToolName: name, ToolOutput: string(b)}
			}
			if t, ok := pm["text"].(string); ok {
				text = append(text, t)
			}
		}
		return Last{UserText: strings.Join(text, "\n")}
	case r.JSON["messages"] != nil: // Chat Completions
		msgs, _ := r.JSON["messages"].([]any)
		if len(msgs) == 0 {
			return Last{}
		}
		m, _ := msgs[len(msgs)-1].(map[string]any)
		content := contentText(m["content"])
		if m["role"] == "tool" {
			id, _ := m["tool_call_id"].(string)
			return Last{CallID: id, ToolOutput: content}
		}
		return Last{UserText: content}
	}
	return Last{}
}

func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var out []string
		for _, p := range v {
			if pm, ok := p.(map[string]any); ok {
				if t, ok := pm["text"].(string); ok {
					out = append(out, t)
				}
			}
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// gemini is a reply as Gemini's generateContent gives it.
func (m *Model) gemini(req *Request) map[string]any {
	var parts []any
	for i, o := range req.Out {
		if o.Call != nil {
			if o.Call.ID == "" {
				o.Call.ID = fmt.Sprintf("call_%d_%d", req.Seq, i)
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": o.Call.Name, "args": o.Call.Args, "id": o.Call.ID}})
		} else {
			parts = append(parts, map[string]any{"text": o.Text})
		}
	}
	return map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": req.Usage.Input, "cachedContentTokenCount": req.Usage.Cached,
			"candidatesTokenCount": req.Usage.Output, "totalTokenCount": req.Usage.Input + req.Usage.Output},
		"modelVersion": "fake-model",
	}
}

// geminiStream answers streamGenerateContent (alt=sse) in one chunk: Gemini
// CLI's AfterAgent hook joins chunks with spaces.
func (m *Model) geminiStream(w http.ResponseWriter, r *http.Request, body []byte) {
	req := m.record(r, body)
	w.Header().Set("Content-Type", "text/event-stream")
	b, _ := json.Marshal(m.gemini(req))
	fmt.Fprintf(w, "data: %s\n\n", b)
}

func (m *Model) geminiUnary(w http.ResponseWriter, r *http.Request, body []byte) {
	req := m.record(r, body)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(m.gemini(req))
}

// chat answers a Chat Completions request as a stream.
func (m *Model) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	req := m.record(r, body)
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chat_%d", req.Seq), "object": "chat.completion.chunk",
			"created": 1, "model": "fake-model", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	finish := "stop"
	var calls []any
	for i, o := range req.Out {
		if o.Call != nil {
			if o.Call.ID == "" {
				o.Call.ID = fmt.Sprintf("call_%d_%d", req.Seq, i)
			}
			args, _ := json.Marshal(o.Call.Args)
			calls = append(calls, map[string]any{"index": len(calls), "id": o.Call.ID, "type": "function",
				"function": map[string]any{"name": o.Call.Name, "arguments": string(args)}})
			finish = "tool_calls"
		} else {
			chunk(map[string]any{"role": "assistant", "content": o.Text}, nil)
		}
	}
	if len(calls) > 0 {
		chunk(map[string]any{"role": "assistant", "tool_calls": calls}, nil)
	}
	b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chat_%d", req.Seq), "object": "chat.completion.chunk", "created": 1,
		"model": "fake-model", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": req.Usage.Input, "prompt_tokens_details": map[string]any{"cached_tokens": req.Usage.Cached},
			"completion_tokens": req.Usage.Output, "total_tokens": req.Usage.Input + req.Usage.Output}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
}

// OffersTool reports whether the request lists a tool whose name holds
// name: the CLIs' side requests (titles, summaries, routing) list none.
func (r *Request) OffersTool(name string) bool {
	tools, ok := r.JSON["tools"].([]any)
	if !ok || len(tools) == 0 {
		return false
	}
	b, _ := json.Marshal(tools)
	return strings.Contains(string(b), name)
}
