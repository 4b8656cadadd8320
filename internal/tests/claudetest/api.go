package claudetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// API is a fake Anthropic Messages API served on 127.0.0.1 for one test.
// Claude Code calls only POST /v1/messages?beta=true
// (docs/PROTOCOL.md §17); every such request is kept. Main-loop turns
// (see IsMainLoop) are answered from the test's script; side requests
// (title or topic generation, quota checks, other small-model calls) get a
// short text reply without consuming the script.
//
// The same server is the HTTP(S) proxy of the Claude process: it refuses
// every CONNECT and every absolute-URL proxy request, so nothing leaves the
// machine, and records what was tried (Refused).
type API struct {
	srv *httptest.Server
	t   testing.TB

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every new request
	reqs    []*Request
	chains  []*chain
	script  func(*Request) (Reply, bool)
	refused []string
	toolSeq int
}

// Request is one POST /v1/messages Claude Code sent.
type Request struct {
	Seq      int       // 1-based, in arrival order over all requests
	Time     time.Time // arrival
	Path     string    // path and query, e.g. /v1/messages?beta=true
	Header   http.Header
	Body     []byte // raw JSON as sent
	Model    string
	MainLoop bool  // answered from the script (IsMainLoop)
	Reply    Reply // what the fake model answered

	sent   time.Time // when the reply's last byte was flushed (API.ReplySent)
	parsed messagesRequest
}

type messagesRequest struct {
	Model    string            `json:"model"`
	System   json.RawMessage   `json:"system"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream   bool `json:"stream"`
	Metadata struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
}

// Reply is what the fake model answers to one turn: content blocks, and a
// stop reason ("tool_use" when a block calls a tool, else "end_turn",
// unless set).
type Reply struct {
	Blocks     []Block
	StopReason string
	// Usage is the token counts the reply reports (nil: 100 in, 10 out,
	// no cache).
	Usage *Usage
}

// Usage is what a reply says it cost, as the Messages API reports it:
// Input leaves out the cache reads and writes.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// WithUsage returns r reporting u.
func (r Reply) WithUsage(u Usage) Reply {
	r.Usage = &u
	return r
}

// usage is the reply's usage object (the default when none was set).
func (r Reply) usage() map[string]any {
	if r.Usage == nil {
		return usage
	}
	u := r.Usage
	return map[string]any{"input_tokens": u.Input, "output_tokens": u.Output,
		"cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CacheRead}
}

// Block is one content block of a reply: a text block (Text) or a tool
// call (Tool, Input; ID is filled in when empty).
type Block struct {
	Text  string
	Tool  string
	Input any
	ID    string
}

// Text is a reply of one text block that ends the turn.
func Text(s string) Reply { return Reply{Blocks: []Block{{Text: s}}} }

// Tool is a tool_use block calling name with input (marshalled to JSON).
func Tool(name string, input any) Block { return Block{Tool: name, Input: input} }

// Calls is a reply that calls tools (in order, in one assistant message).
func Calls(blocks ...Block) Reply { return Reply{Blocks: blocks} }

// WithText returns r preceded by a text block, as a model often does.
func (r Reply) WithText(s string) Reply {
	r.Blocks = append([]Block{{Text: s}}, r.Blocks...)
	return r
}

// NewAPI starts the fake API; it is closed when the test ends.
func NewAPI(t testing.TB) *API {
	t.Helper()
	a := &API{t: t, changed: make(chan struct{})}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	if dir := os.Getenv("PANETEAM_CLAUDETEST_DUMP"); dir != "" {
		t.Cleanup(func() { a.dump(dir) })
	}
	return a
}

// dump writes every request body into dir as
// <test>-<seq>-<main|side>.json, for reading what Claude Code sends
// (PANETEAM_CLAUDETEST_DUMP=<dir>).
func (a *API) dump(dir string) {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(a.t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		a.t.Logf("dump requests: %v", err)
		return
	}
	for _, r := range a.Requests() {
		kind := "side"
		if r.MainLoop {
			kind = "main"
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%02d-%s.json", name, r.Seq, kind)), r.Body, 0o644)
	}
	a.t.Logf("request bodies written to %s", dir)
}

// URL is the base URL for ANTHROPIC_BASE_URL and the proxy variables.
func (a *API) URL() string { return a.srv.URL }

// On scripts one exchange of the main loop: the first main-loop request
// whose newest user turn (the messages after the model's last reply)
// contains trigger gets replies[0]; a request answering a tool call of
// replies[i] (it carries the tool_result) gets replies[i+1]; a request
// answering the last one's tool calls gets Text("Done."). Everything else
// in the main loop (teammates' idle notifications, a teammate's first turn
// nobody scripted) gets Text("OK."), so messages that arrive at their own
// time do not eat the script. A trigger fires once.
func (a *API) On(trigger string, replies ...Reply) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.chains = append(a.chains, &chain{trigger: trigger, replies: replies})
}

// Script sets a function consulted first for every main-loop turn; when it
// returns ok=false the exchanges set with On answer. Use it for replies
// that depend on what Claude delivered (a request id to answer, say).
func (a *API) Script(f func(req *Request) (Reply, bool)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.script = f
}

type chain struct {
	trigger string
	replies []Reply
	next    int      // replies given so far
	pending bool     // replies[next-1] given to the request being answered
	waiting []string // tool_use ids of the reply last given
}

// Pending is how many scripted replies (On) are still unused.
func (a *API) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range a.chains {
		n += len(c.replies) - c.next
	}
	return n
}

// Requests returns every messages request so far, in arrival order.
func (a *API) Requests() []*Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*Request(nil), a.reqs...)
}

// MainLoop returns the main-loop requests so far, in arrival order.
func (a *API) MainLoop() []*Request {
	var out []*Request
	for _, r := range a.Requests() {
		if r.MainLoop {
			out = append(out, r)
		}
	}
	return out
}

// Refused lists the proxy requests refused so far ("CONNECT host:443").
func (a *API) Refused() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.refused...)
}

// WaitRequest waits until a request after the first `after` requests
// (Seq > after) satisfies match, and returns it; the test fails after d.
func (a *API) WaitRequest(t testing.TB, d time.Duration, after int, what string, match func(*Request) bool) *Request {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		a.mu.Lock()
		reqs, ch := a.reqs, a.changed
		a.mu.Unlock()
		for _, r := range reqs {
			if r.Seq > after && match(r) {
				return r
			}
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("after %s no request to the fake model %s; main-loop requests were:\n%s", d, what, a.describe())
			return nil
		}
	}
}

// WaitMessages waits for a main-loop request (after Seq `after`) whose
// conversation contains substr in a decoded string (text, tool input or
// tool result), and returns it.
func (a *API) WaitMessages(t testing.TB, d time.Duration, after int, substr string) *Request {
	t.Helper()
	return a.WaitRequest(t, d, after, fmt.Sprintf("containing %q", substr), func(r *Request) bool {
		return r.MainLoop && strings.Contains(r.MessagesText(), substr)
	})
}

// LastSeq is the Seq of the latest request (0 before any), for "after".
func (a *API) LastSeq() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.reqs)
}

func (a *API) describe() string {
	var b strings.Builder
	for _, r := range a.Requests() {
		kind := "side"
		if r.MainLoop {
			kind = "main"
		}
		last := r.TailText()
		if len(last) > 300 {
			last = last[:300] + "…"
		}
		fmt.Fprintf(&b, "  #%d %s model=%s tools=%d newest user turn: %q\n", r.Seq, kind, r.Model, len(r.parsed.Tools), last)
	}
	return b.String()
}

// SessionID is the Claude Code session that sent the request (observed in
// 2.1.330: metadata.user_id is a JSON text with device_id, account_uuid
// and session_id). The lead and its in-process teammates share the lead's
// session id (config.json leadSessionId); a pane teammate has its own.
func (r *Request) SessionID() string {
	var u struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(r.parsed.Metadata.UserID), &u)
	return u.SessionID
}

// InProcessTeammate reports whether the request comes from an in-process
// teammate's loop: observed in 2.1.330, their system prompt starts "You
// are a Claude agent, built on Anthropic's Claude Agent SDK." where the
// lead's (and a pane teammate's) starts "You are Claude Code, Anthropic's
// official CLI for Claude."
func (r *Request) InProcessTeammate() bool {
	return strings.Contains(r.SystemText(), "built on Anthropic's Claude Agent SDK")
}

// ToolNames lists the tools offered in the request.
func (r *Request) ToolNames() []string {
	var out []string
	for _, t := range r.parsed.Tools {
		out = append(out, t.Name)
	}
	return out
}

// ToolSchema is the input schema of the named tool, or nil.
func (r *Request) ToolSchema(name string) json.RawMessage {
	for _, t := range r.parsed.Tools {
		if t.Name == name {
			return t.InputSchema
		}
	}
	return nil
}

// SystemText is the system prompt's text.
func (r *Request) SystemText() string { return strings.Join(stringsIn(r.parsed.System), "\n") }

// MessagesText is every string in the conversation (text blocks, tool
// inputs and tool results, decoded), joined by newlines.
func (r *Request) MessagesText() string {
	var parts []string
	for _, m := range r.parsed.Messages {
		parts = append(parts, stringsIn(m)...)
	}
	return strings.Join(parts, "\n")
}

// LastMessageText is every string in the last message of the conversation.
func (r *Request) LastMessageText() string {
	if len(r.parsed.Messages) == 0 {
		return ""
	}
	return strings.Join(stringsIn(r.parsed.Messages[len(r.parsed.Messages)-1]), "\n")
}

// tail is the messages after the model's last reply: the newest user turn.
func (r *Request) tail() []json.RawMessage {
	msgs := r.parsed.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		var m struct {
			Role string `json:"role"`
		}
		if json.Unmarshal(msgs[i], &m) == nil && m.Role == "assistant" {
			return msgs[i+1:]
		}
	}
	return msgs
}

// TailText is every string in the newest user turn (the messages after
// the model's last reply): a typed prompt, tool results, messages Claude
// delivered.
func (r *Request) TailText() string {
	var parts []string
	for _, m := range r.tail() {
		parts = append(parts, stringsIn(m)...)
	}
	return strings.Join(parts, "\n")
}

// tailToolResults is the set of tool_use ids the newest user turn answers.
func (r *Request) tailToolResults() map[string]bool {
	out := map[string]bool{}
	for _, raw := range r.tail() {
		for _, b := range contentBlocks(raw) {
			if b.Type == "tool_result" {
				out[b.ToolUseID] = true
			}
		}
	}
	return out
}

type contentBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func contentBlocks(raw json.RawMessage) []contentBlock {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var blocks []contentBlock
	json.Unmarshal(m.Content, &blocks)
	return blocks
}

// ToolResult returns the text of the tool_result answering the tool call
// with this id, and whether the request carries it.
func (r *Request) ToolResult(id string) (string, bool) {
	for _, raw := range r.parsed.Messages {
		for _, b := range contentBlocks(raw) {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return strings.Join(stringsIn(b.Content), "\n"), true
			}
		}
	}
	return "", false
}

// stringsIn returns every string value in a JSON document, depth first.
func stringsIn(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			// Keys in a fixed order that puts the readable ones first.
			for _, k := range []string{"type", "text", "name", "id", "tool_use_id", "input", "content"} {
				if e, ok := x[k]; ok {
					walk(e)
				}
			}
			for k, e := range x {
				switch k {
				case "type", "text", "name", "id", "tool_use_id", "input", "content", "cache_control", "signature":
					continue
				}
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	// Proxy traffic: CONNECT, or an absolute URL for another host.
	if r.Method == http.MethodConnect || r.URL.IsAbs() {
		a.mu.Lock()
		a.refused = append(a.refused, r.Method+" "+r.Host+r.URL.Path)
		a.mu.Unlock()
		http.Error(w, "paneteam test proxy: no traffic leaves this machine", http.StatusForbidden)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		a.messages(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":1000}`)
	default:
		a.mu.Lock()
		a.refused = append(a.refused, r.Method+" "+r.URL.String())
		a.mu.Unlock()
		http.NotFound(w, r)
	}
}

func (a *API) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{Time: time.Now(), Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &req.parsed); err != nil {
		http.Error(w, "fake API: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Model = req.parsed.Model
	req.MainLoop = IsMainLoop(req)

	a.mu.Lock()
	req.Seq = len(a.reqs) + 1
	if req.MainLoop {
		reply, ok := Reply{}, false
		if a.script != nil {
			script := a.script
			a.mu.Unlock()
			reply, ok = script(req)
			a.mu.Lock()
		}
		if !ok {
			reply, ok = a.fromChains(req)
		}
		if !ok {
			reply = Text("OK.")
		}
		req.Reply = reply
	} else {
		req.Reply = sideReply(req)
	}
	for i := range req.Reply.Blocks {
		if req.Reply.Blocks[i].Tool != "" && req.Reply.Blocks[i].ID == "" {
			a.toolSeq++
			req.Reply.Blocks[i].ID = fmt.Sprintf("toolu_paneteam%06d", a.toolSeq)
		}
	}
	if req.MainLoop {
		a.noteToolIDs(req)
	}
	a.reqs = append(a.reqs, req)
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()

	if req.parsed.Stream {
		writeSSE(w, req.Model, req.Reply)
	} else {
		writeJSON(w, req.Model, req.Reply)
	}
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	a.mu.Lock()
	req.sent = time.Now()
	a.mu.Unlock()
}

// ReplySent is when the fake model's reply to r was sent in full (its
// last byte flushed to Claude), or the zero time while it is being sent.
// With Request.Time of a later request it times what Claude did in
// between: from a reply calling a tool to the request that tool caused.
func (a *API) ReplySent(r *Request) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return r.sent
}

// fromChains finds the exchange req continues or starts (a.mu held).
func (a *API) fromChains(req *Request) (Reply, bool) {
	results := req.tailToolResults()
	for _, c := range a.chains {
		for _, id := range c.waiting {
			if results[id] {
				c.waiting = nil
				if c.next >= len(c.replies) {
					return Text("Done."), true
				}
				c.next++
				c.pending = true
				return c.replies[c.next-1], true
			}
		}
	}
	tail := req.TailText()
	for _, c := range a.chains {
		if c.next == 0 && len(c.replies) > 0 && strings.Contains(tail, c.trigger) {
			c.next = 1
			c.pending = true
			return c.replies[0], true
		}
	}
	return Reply{}, false
}

// noteToolIDs records the tool_use ids of the reply just given to the
// exchange that gave it (a.mu held; ids are assigned by then).
func (a *API) noteToolIDs(req *Request) {
	for _, c := range a.chains {
		if !c.pending {
			continue
		}
		c.pending = false
		for _, b := range req.Reply.Blocks {
			if b.Tool != "" {
				c.waiting = append(c.waiting, b.ID)
			}
		}
	}
}

// IsMainLoop tells a main-loop turn of Claude Code from a side
// request by its tools: observed, every main-loop turn offers tools (the
// lead's 13, Agent, Bash, ToolSearch, …, more once ToolSearch loaded
// some; an in-process teammate's 9; a pane teammate's like the lead's),
// and a side request offers none. The side request seen is the session
// title (model claude-haiku-5-5, "tools":[], output_config.format a JSON
// schema {title}, the prompt quoted inside <session>…</session>); it comes
// only with nonessential traffic on: with
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, as Start sets it, no side
// request was seen at all. Lead and teammates: Request.SessionID and
// Request.InProcessTeammate.
func IsMainLoop(r *Request) bool {
	return len(r.parsed.Tools) > 0
}

// sideReply answers a side request with something harmless: a short title
// in the JSON shape title generation asks for, and plain text otherwise.
func sideReply(r *Request) Reply {
	if strings.Contains(r.SystemText(), "title") {
		return Text(`{"title":"paneteam test"}`)
	}
	return Text("OK")
}

func (b Block) inputJSON() string {
	if b.Input == nil {
		return "{}"
	}
	if raw, ok := b.Input.(string); ok {
		return raw
	}
	j, err := json.Marshal(b.Input)
	if err != nil {
		panic(fmt.Sprintf("claudetest: tool input for %s: %v", b.Tool, err))
	}
	return string(j)
}

func (r Reply) stopReason() string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Blocks {
		if b.Tool != "" {
			return "tool_use"
		}
	}
	return "end_turn"
}

var msgSeq struct {
	sync.Mutex
	n int
}

func messageID() string {
	msgSeq.Lock()
	defer msgSeq.Unlock()
	msgSeq.n++
	return fmt.Sprintf("msg_paneteam%08d", msgSeq.n)
}

var usage = map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

// writeSSE streams reply in the event order of docs/PROTOCOL.md §17:
// message_start, ping, per block content_block_start/_delta/_stop,
// message_delta (stop_reason), message_stop.
func writeSSE(w http.ResponseWriter, model string, reply Reply) {
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
		"id": messageID(), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": reply.usage(),
	}})
	event("ping", map[string]any{"type": "ping"})
	for i, b := range reply.Blocks {
		if b.Tool != "" {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Tool, "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": b.inputJSON()}})
		} else {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reply.stopReason(), "stop_sequence": nil},
		"usage": reply.usage()})
	event("message_stop", map[string]any{"type": "message_stop"})
}

func writeJSON(w http.ResponseWriter, model string, reply Reply) {
	var content []any
	for _, b := range reply.Blocks {
		if b.Tool != "" {
			content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Tool, "input": json.RawMessage(b.inputJSON())})
		} else {
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": messageID(), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": reply.stopReason(), "stop_sequence": nil, "usage": reply.usage(),
	})
}
