package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/agents/mcpserver"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// rawServer is 'paneteam mcp' spoken to in raw lines, as no SDK client
// would write them.
type rawServer struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	answers chan map[string]any
}

// serveRaw starts the built server as agent and initializes the session.
func serveRaw(t *testing.T, tm team.Team, agent string) *rawServer {
	t.Helper()
	testutil.MCPBinary(t)
	cmd := exec.Command(testutil.Binary(t), "mcp")
	cmd.Env = testutil.Env("PANETEAM_ROOT="+tm.Root, "PANETEAM_TEAM="+tm.Name, "PANETEAM_AGENT="+agent)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawServer{cmd: cmd, in: in, answers: make(chan map[string]any, 16)}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	go func() {
		defer close(s.answers)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(line, &m) == nil {
				s.answers <- m
			}
		}
	}()
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if a := s.answer(t, 1); a["result"] == nil {
		t.Fatalf("initialize: %v", a)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawServer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("write %d bytes to the server: %v (did it exit?)", len(line), err)
	}
}

// answer waits for the answer to request id.
func (s *rawServer) answer(t *testing.T, id int) map[string]any {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case a, ok := <-s.answers:
			if !ok {
				t.Fatalf("the server closed its output before answering request %d (it exited: %v)", id, s.cmd.Wait())
			}
			if n, _ := a["id"].(float64); int(n) == id {
				return a
			}
		case <-timeout:
			t.Fatalf("no answer to request %d", id)
		}
	}
}

// sendCall is a send_message call with its id last, as Claude Code's
// client (the TypeScript SDK) orders a request's keys.
func sendCall(id int, text string) string {
	args, _ := json.Marshal(map[string]string{"to": "team-lead", "text": text})
	return fmt.Sprintf(`{"method":"tools/call","params":{"name":"send_message","arguments":%s},"jsonrpc":"2.0","id":%d}`, args, id)
}

func errorOf(a map[string]any) (code float64, msg string) {
	e, _ := a["error"].(map[string]any)
	code, _ = e["code"].(float64)
	msg, _ = e["message"].(string)
	return code, msg
}

// A 40 MB request, too long to take, is answered with an error naming
// the limit, and the server keeps serving: the next call is delivered.
// So are lines that are not JSON or not JSON-RPC.
func TestOversizedAndBrokenRequestsAreAnsweredAndServingGoesOn(t *testing.T) {
	tm := teamWith(t, "coder")
	s := serveRaw(t, tm, "coder")

	before := peakKB(s)
	const huge = 40 << 20
	s.send(t, sendCall(2, strings.Repeat("x", huge)))
	code, msg := errorOf(s.answer(t, 2))
	if code != -32600 || !strings.Contains(msg, fmt.Sprint(mcpserver.MaxRequestBytes)) || !strings.Contains(msg, "as a file") {
		t.Errorf("40 MB request: error %v %q, want -32600 naming the limit %d and the fix", code, msg, mcpserver.MaxRequestBytes)
	}
	// Skipped, not held: the server's peak memory grew by less than half
	// the request (where /proc tells). A server that held the line grows
	// by several times its size; one that skips it by the buffers it
	// reads through, which the race detector's runtime inflates.
	after := peakKB(s)
	t.Logf("peak memory %d kB before, %d kB after", before, after)
	if before > 0 && (after-before)<<10 > huge/2 {
		t.Errorf("the server's peak memory grew from %d kB to %d kB reading a %d MB request", before, after, huge>>20)
	}
	// The id first, as the Go SDK writes it.
	s.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"team-lead","text":"`+
		strings.Repeat("y", 3<<20)+`"}}}`)
	if code, _ := errorOf(s.answer(t, 3)); code != -32600 {
		t.Errorf("3 MB request, id first: error code %v, want -32600", code)
	}
	s.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/list"`)
	if code, _ := errorOf(s.answer(t, 4)); code != -32700 {
		t.Errorf("unfinished JSON: error code %v, want -32700", code)
	}
	s.send(t, `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`)
	if code, _ := errorOf(s.answer(t, 5)); code != -32600 {
		t.Errorf("not JSON-RPC 2.0: error code %v, want -32600", code)
	}
	s.send(t, `[]`)
	s.send(t, `not json at all`)

	s.send(t, sendCall(6, "still here"))
	if a := s.answer(t, 6); a["result"] == nil {
		t.Fatalf("the call after the refused ones: %v", a)
	}
	if got := inbox(t, tm, "team-lead"); len(got) != 1 || got[0].Text != "still here" {
		t.Fatalf("lead's inbox: %+v, want only the last message", got)
	}
}

// peakKB is the server's peak resident memory (Linux's VmHWM), 0 where
// /proc does not tell.
func peakKB(s *rawServer) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}
