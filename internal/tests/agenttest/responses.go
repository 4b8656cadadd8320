package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Model is a scripted model served on 127.0.0.1 for one test. It is also
// the agent CLI's HTTP(S) proxy: it refuses every CONNECT and every
// request for another host, and records them (Refused), so nothing leaves
// the machine.
type Model struct {
	srv *httptest.Server
	t   testing.TB

	mu      sync.Mutex
	changed chan struct{}
	reqs    []*Request
	refused []string
	script  func(*Request) []Output
	seq     int
	usageOf func(*Request) Usage
}

// Usage is what a reply reports it cost, in the APIs' own meaning: Input
// includes the Cached part.
type Usage struct {
	Input, Cached, Output int
}

// ReportUsage makes each reply report what f says for its request
// (10 in, 5 out, none cached when not set).
func (m *Model) ReportUsage(f func(*Request) Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usageOf = f
}

// Request is one model request an agent CLI sent.
type Request struct {
	Seq  int
	Time time.Time
	Path string
	Body []byte
	JSON map[string]any
	Out  []Output // what the model answered
	// Usage is what the reply reported.
	Usage Usage
}

// Output is one item of a reply: text, or a call of a tool.
type Output struct {
	Text string
	Call *Call
}

// Call is a tool call: Name is the tool's name as the CLI lists it to the
// model (for Codex, the MCP tool's own name with Namespace "mcp__team").
type Call struct {
	Namespace string
	Name      string
	Args      any
	ID        string
}

// Text is a reply of plain text.
func Text(s string) []Output { return []Output{{Text: s}} }

// CallTool is a reply calling one tool.
func CallTool(namespace, name string, args any) []Output {
	return []Output{{Call: &Call{Namespace: namespace, Name: name, Args: args}}}
}

// NewModel starts the scripted model; script answers each request.
func NewModel(t testing.TB, script func(*Request) []Output) *Model {
	m := &Model{t: t, script: script, changed: make(chan struct{})}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// URL is the server's base URL (http://127.0.0.1:PORT).
func (m *Model) URL() string { return m.srv.URL }

// ProxyEnv points the CLI's proxy variables at the model, which refuses
// whatever is not for itself.
func (m *Model) ProxyEnv() []string {
	return []string{"HTTPS_PROXY=" + m.URL(), "HTTP_PROXY=" + m.URL(), "https_proxy=" + m.URL(), "http_proxy=" + m.URL(),
		"ALL_PROXY=" + m.URL(), "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	own := strings.TrimPrefix(m.srv.URL, "http://")
	if r.Method == http.MethodConnect || (r.URL.Host != "" && r.URL.Host != own) {
		m.mu.Lock()
		m.refused = append(m.refused, r.Method+" "+r.Host+r.URL.Path)
		m.mu.Unlock()
		http.Error(w, "no outside connections in tests", http.StatusForbidden)
		return
	}
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		m.responses(w, r, body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		m.geminiStream(w, r, body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":generateContent"):
		m.geminiUnary(w, r, body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"totalTokens": 10}`))
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		m.chat(w, r, body)
	default:
		m.mu.Lock()
		m.refused = append(m.refused, r.Method+" "+r.URL.Path)
		m.mu.Unlock()
		http.NotFound(w, r)
	}
}

func (m *Model) record(r *http.Request, body []byte) *Request {
	req := &Request{Time: time.Now(), Path: r.URL.Path, Body: body}
	json.Unmarshal(body, &req.JSON)
	m.mu.Lock()
	m.seq++
	req.Seq = m.seq
	m.mu.Unlock()
	req.Out = m.script(req)
	m.mu.Lock()
	req.Usage = Usage{Input: 10, Output: 5}
	if m.usageOf != nil {
		req.Usage = m.usageOf(req)
	}
	m.reqs = append(m.reqs, req)
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
	return req
}

// responses answers an OpenAI Responses API request as a stream.
func (m *Model) responses(w http.ResponseWriter, r *http.Request, body []byte) {
	req := m.record(r, body)
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", req.Seq)
	event := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	event("response.created", map[string]any{"response": map[string]any{"id": id}})
	for i, o := range req.Out {
		var item map[string]any
		if o.Call != nil {
			args, _ := json.Marshal(o.Call.Args)
			if o.Call.ID == "" {
				o.Call.ID = fmt.Sprintf("call_%d_%d", req.Seq, i)
			}
			item = map[string]any{"type": "function_call", "name": o.Call.Name, "arguments": string(args), "call_id": o.Call.ID}
			if o.Call.Namespace != "" {
				item["namespace"] = o.Call.Namespace
			}
		} else {
			event("response.output_text.delta", map[string]any{"delta": o.Text, "output_index": i, "content_index": 0})
			item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d_%d", req.Seq, i),
				"content": []any{map[string]any{"type": "output_text", "text": o.Text}}}
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	event("response.completed", map[string]any{"response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": req.Usage.Input, "input_tokens_details": map[string]any{"cached_tokens": req.Usage.Cached},
			"output_tokens": req.Usage.Output, "total_tokens": req.Usage.Input + req.Usage.Output}}})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// Requests returns the requests so far.
func (m *Model) Requests() []*Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*Request(nil), m.reqs...)
}

// Refused is what the CLI tried to reach elsewhere.
func (m *Model) Refused() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.refused...)
}

// Wait waits up to d for cond over the requests so far.
func (m *Model) Wait(d time.Duration, what string, cond func([]*Request) bool) {
	m.t.Helper()
	deadline := time.After(d)
	for {
		m.mu.Lock()
		reqs, ch := append([]*Request(nil), m.reqs...), m.changed
		m.mu.Unlock()
		if cond(reqs) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			m.t.Fatalf("timed out after %s waiting for %s (%d model requests)", d, what, len(reqs))
		}
	}
}

// Input returns the request's input items (Responses API).
func (r *Request) Input() []map[string]any {
	var out []map[string]any
	items, _ := r.JSON["input"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// LastItem is the request's last input item.
func (r *Request) LastItem() map[string]any {
	in := r.Input()
	if len(in) == 0 {
		return nil
	}
	return in[len(in)-1]
}

// ToolOutput is the output of the tool call callID in the request's input.
func (r *Request) ToolOutput(callID string) (string, bool) {
	for _, it := range r.Input() {
		if it["type"] == "function_call_output" && it["call_id"] == callID {
			switch o := it["output"].(type) {
			case string:
				return o, true
			default:
				b, _ := json.Marshal(o)
				return string(b), true
			}
		}
	}
	return "", false
}

// UserTexts is every user text in the request's input, in order.
func (r *Request) UserTexts() []string {
	var out []string
	for _, it := range r.Input() {
		if it["role"] != "user" {
			continue
		}
		parts, _ := it["content"].([]any)
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				if s, ok := pm["text"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// Contains reports whether the request's body holds s.
func (r *Request) Contains(s string) bool { return strings.Contains(string(r.Body), s) }
