package claudecheck

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// model is a scripted stand-in for Anthropic's Messages API, served on
// 127.0.0.1 for one check: the lead's model spawns one teammate with its
// Agent tool, every other turn answers "OK.". It is also the Claude
// process's HTTP(S) proxy and refuses everything, so nothing of the
// check leaves the machine and no account is used.
type model struct {
	srv *http.Server
	url string

	mu       sync.Mutex
	lead     string // the lead's session id (the first main-loop request's)
	spawned  bool
	prompted bool // the teammate's model got its prompt
	// promptSeen counts requests carrying the lead's prompt.
	promptSeen int
	requests   int
	refused    []string
	changed    chan struct{}
}

// probePrompt is the teammate's prompt; probeName its name.
const (
	probeName   = "probe"
	probePrompt = "paneteam check: a teammate started through paneteam's tmux. Reply OK."
	leadPrompt  = "paneteam check: start one teammate"
)

func startModel() (*model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the scripted model: %w", err)
	}
	m := &model{url: "http://" + ln.Addr().String(), changed: make(chan struct{})}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve)}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *model) close() { m.srv.Close() }

// wait returns a channel closed at the next request.
func (m *model) wait() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

func (m *model) state() (spawned, prompted bool, requests int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spawned, m.prompted, m.requests
}

// requestsSeen counts the main-loop requests that carried the lead's
// prompt (0 until it was submitted).
func (m *model) requestsSeen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.promptSeen
}

func (m *model) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect || r.URL.IsAbs() {
		m.mu.Lock()
		m.refused = append(m.refused, r.Method+" "+r.Host)
		m.mu.Unlock()
		http.Error(w, "paneteam check: no traffic leaves this machine", http.StatusForbidden)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":1000}`)
		return
	default:
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Model    string            `json:"model"`
		Stream   bool              `json:"stream"`
		Tools    []json.RawMessage `json:"tools"`
		System   json.RawMessage   `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Metadata struct {
			UserID string `json:"user_id"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	var session struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(req.Metadata.UserID), &session)
	// The newest user turn: what follows the model's last reply.
	var tail strings.Builder
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "assistant"; i-- {
		tail.Write(req.Messages[i].Content)
	}
	reply := []block{{text: "OK."}}
	m.mu.Lock()
	m.requests++
	switch {
	case len(req.Tools) == 0: // a side request (a title, a topic)
		if strings.Contains(string(req.System), "title") {
			reply = []block{{text: `{"title":"paneteam check"}`}}
		}
	case strings.Contains(tail.String(), leadPrompt) && !m.spawned:
		m.promptSeen++
		m.lead = session.SessionID
		m.spawned = true
		reply = []block{{tool: "Agent", input: map[string]any{"name": probeName, "description": "paneteam check", "prompt": probePrompt}}}
	case session.SessionID != m.lead && strings.Contains(tail.String(), "paneteam check: a teammate"):
		m.prompted = true
	}
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
	writeReply(w, req.Model, req.Stream, reply)
}

type block struct {
	text  string
	tool  string
	input any
}

func writeReply(w http.ResponseWriter, modelName string, stream bool, blocks []block) {
	var b [8]byte
	rand.Read(b[:])
	id := "msg_paneteam" + hex.EncodeToString(b[:])
	stop := "end_turn"
	var content []any
	for i, bl := range blocks {
		if bl.tool != "" {
			stop = "tool_use"
			in, _ := json.Marshal(bl.input)
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_paneteam%s%d", hex.EncodeToString(b[:4]), i), "name": bl.tool, "input": json.RawMessage(in)})
		} else {
			content = append(content, map[string]any{"type": "text", "text": bl.text})
		}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 10}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "type": "message", "role": "assistant", "model": modelName,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	event := func(name string, data any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, j)
		if fl != nil {
			fl.Flush()
		}
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": modelName,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, c := range content {
		c := c.(map[string]any)
		if c["type"] == "tool_use" {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(c["input"].(json.RawMessage))}})
		} else {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
