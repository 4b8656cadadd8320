package claudecheck

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/sys/sock"
)

// model is a scripted stand-in for Anthropic's Messages API, served on
// 127.0.0.1 for one check: the lead's model spawns one teammate with its
// Agent tool, every other turn answers "OK.". It is also the Claude
// process's HTTP(S) proxy and refuses everything, so nothing of the
// check leaves the machine and no account is used.
//
// It speaks just enough HTTP/1.1 over a TCP socket driven through os.File
// (as ptyhost's attach socket is): paneteam is one binary, and package net
// would make every cgo-enabled build link libc dynamically, a cost paid at
// every start of every command (cmd/paneteam TestNoNetOrCgo).
type model struct {
	ln  *os.File
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
	fd, err := sock.Socket(unix.AF_INET)
	if err != nil {
		return nil, fmt.Errorf("serve the scripted model: socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("serve the scripted model: bind 127.0.0.1: %w", err)
	}
	if err := unix.Listen(fd, 64); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("serve the scripted model: listen: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	in4, ok := sa.(*unix.SockaddrInet4)
	if err != nil || !ok {
		unix.Close(fd)
		return nil, fmt.Errorf("serve the scripted model: its port: %v", err)
	}
	m := &model{ln: os.NewFile(uintptr(fd), "model"), url: "http://127.0.0.1:" + strconv.Itoa(in4.Port), changed: make(chan struct{})}
	go m.accept()
	return m, nil
}

func (m *model) close() { m.ln.Close() }

func (m *model) accept() {
	rc, err := m.ln.SyscallConn()
	if err != nil {
		return
	}
	for {
		var nfd int
		var aerr error
		err := rc.Read(func(fd uintptr) bool {
			nfd, aerr = sock.Accept(int(fd))
			return aerr != unix.EAGAIN
		})
		if err != nil {
			return // closed
		}
		if aerr != nil {
			continue
		}
		go m.conn(os.NewFile(uintptr(nfd), "client"))
	}
}

// conn answers the requests of one connection, one after the other.
func (m *model) conn(f *os.File) {
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		method, target, body, err := readRequest(r)
		if err != nil {
			return
		}
		w := bufio.NewWriter(f)
		closeAfter := m.serve(w, method, target, body)
		if w.Flush() != nil || closeAfter {
			return
		}
	}
}

// readRequest reads one HTTP/1.1 request: its method, target and body
// (by Content-Length, or chunked).
func readRequest(r *bufio.Reader) (method, target string, body []byte, err error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", "", nil, err
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return "", "", nil, fmt.Errorf("bad request line %q", line)
	}
	method, target = f[0], f[1]
	length, chunked := 0, false
	for {
		h, err := r.ReadString('\n')
		if err != nil {
			return "", "", nil, err
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(v), "chunked")
		}
	}
	if !chunked {
		body = make([]byte, length)
		_, err = io.ReadFull(r, body)
		return method, target, body, err
	}
	for {
		sz, err := r.ReadString('\n')
		if err != nil {
			return "", "", nil, err
		}
		n, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(sz, ";", 2)[0]), 16, 64)
		if err != nil {
			return "", "", nil, err
		}
		if n == 0 {
			r.ReadString('\n') // the blank line after the last chunk
			return method, target, body, nil
		}
		chunk := make([]byte, n+2)
		if _, err := io.ReadFull(r, chunk); err != nil {
			return "", "", nil, err
		}
		body = append(body, chunk[:n]...)
	}
}

// respond writes a whole response with a body.
func respond(w io.Writer, status, contentType string, body []byte) {
	fmt.Fprintf(w, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", status, contentType, len(body))
	w.Write(body)
}

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

// serve answers one request; it reports whether the connection is to
// be closed after it (a streamed reply ends with the connection).
func (m *model) serve(w io.Writer, method, target string, body []byte) bool {
	path, _, _ := strings.Cut(target, "?")
	switch {
	case method == "CONNECT" || !strings.HasPrefix(target, "/"):
		m.mu.Lock()
		m.refused = append(m.refused, method+" "+target)
		m.mu.Unlock()
		respond(w, "403 Forbidden", "text/plain", []byte("paneteam check: no traffic leaves this machine\n"))
		return true
	case method == "POST" && path == "/v1/messages":
	case method == "POST" && path == "/v1/messages/count_tokens":
		respond(w, "200 OK", "application/json", []byte(`{"input_tokens":1000}`))
		return false
	default:
		respond(w, "404 Not Found", "text/plain", []byte("not found\n"))
		return false
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
		respond(w, "400 Bad Request", "text/plain", []byte("bad JSON: "+err.Error()+"\n"))
		return false
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
	return writeReply(w, req.Model, req.Stream, reply)
}

type block struct {
	text  string
	tool  string
	input any
}

// writeReply writes the model's reply, whole or as server-sent events (then
// the connection ends with it: it reports true).
func writeReply(w io.Writer, modelName string, stream bool, blocks []block) bool {
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
		j, _ := json.Marshal(map[string]any{"id": id, "type": "message", "role": "assistant", "model": modelName,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		respond(w, "200 OK", "application/json", j)
		return false
	}
	io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")
	event := func(name string, data any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, j)
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
	return true
}
