package claudetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, api *API, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(api.URL()+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvents reads an SSE stream into (event name, data) pairs.
func sseEvents(t *testing.T, resp *http.Response) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
			data = append(data, d)
		}
	}
	return names, data
}

const mainLoopBody = `{"model":"claude-opus-5-5","stream":true,"system":[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude."}],
"tools":[{"name":"Bash","input_schema":{}}],"messages":[{"role":"user","content":[{"type":"text","text":"%s"}]}]}`

func TestScriptedExchangeStreamsInClaudesOrder(t *testing.T) {
	api := NewAPI(t)
	api.On("go", Calls(Tool("Bash", map[string]any{"command": "echo hi"})).WithText("Running it."), Text("All done."))

	names, data := sseEvents(t, post(t, api, fmt.Sprintf(mainLoopBody, "go")))
	want := "message_start ping content_block_start content_block_delta content_block_stop content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	call := data[5]["content_block"].(map[string]any)
	if call["type"] != "tool_use" || call["name"] != "Bash" {
		t.Errorf("second block = %v, want a Bash tool_use", call)
	}
	if pj := data[6]["delta"].(map[string]any)["partial_json"]; pj != `{"command":"echo hi"}` {
		t.Errorf("input_json_delta = %v", pj)
	}
	if sr := data[8]["delta"].(map[string]any)["stop_reason"]; sr != "tool_use" {
		t.Errorf("stop_reason = %v, want tool_use", sr)
	}

	// An unrelated main-loop turn (say an idle notification) does not eat
	// the script; the tool result continues it.
	_, data = sseEvents(t, post(t, api, fmt.Sprintf(mainLoopBody, "idle_notification")))
	if txt := data[3]["delta"].(map[string]any)["text"]; txt != "OK." {
		t.Errorf("unscripted turn got %v, want OK.", txt)
	}
	id := call["id"].(string)
	result := `{"model":"m","stream":true,"tools":[{"name":"Bash","input_schema":{}}],"messages":[
{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"hi"}]}]}`
	_, data = sseEvents(t, post(t, api, result))
	if txt := data[3]["delta"].(map[string]any)["text"]; txt != "All done." {
		t.Errorf("turn after the tool result got %v, want the script's next reply", txt)
	}
	if api.Pending() != 0 {
		t.Errorf("%d scripted replies unused", api.Pending())
	}
	reqs := api.Requests()
	if len(reqs) != 3 || !reqs[2].MainLoop {
		t.Fatalf("kept %d requests, want 3 main-loop ones", len(reqs))
	}
	if out, ok := reqs[2].ToolResult(id); !ok || out != "hi" {
		t.Errorf("ToolResult(%s) = %q, %v", id, out, ok)
	}
	// The tool call's reply was sent in full after its request came and
	// before the next request (sent once the stream was read to its end).
	if sent := api.ReplySent(reqs[0]); sent.Before(reqs[0].Time) || sent.After(reqs[1].Time) {
		t.Errorf("reply sent at %v, want between its request %v and the next %v", sent, reqs[0].Time, reqs[1].Time)
	}
}

func TestSideRequestsDoNotTouchTheScript(t *testing.T) {
	api := NewAPI(t)
	api.On("hello", Text("scripted"))
	// No tools: a side request (e.g. a title), even if it quotes the prompt.
	_, data := sseEvents(t, post(t, api, `{"model":"claude-haiku","stream":true,"messages":[{"role":"user","content":"hello"}]}`))
	if txt := data[3]["delta"].(map[string]any)["text"]; txt == "scripted" {
		t.Errorf("a side request took the scripted reply")
	}
	if api.Pending() != 1 || api.Requests()[0].MainLoop {
		t.Errorf("side request counted as main loop")
	}
}

func TestProxyRefusesEverything(t *testing.T) {
	api := NewAPI(t)
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(api.URL(), "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT downloads.claude.ai:443 HTTP/1.1\r\nHost: downloads.claude.ai:443\r\n\r\n")
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(status, "403") {
		t.Errorf("CONNECT answered %q, %v; want 403", status, err)
	}
	if r := api.Refused(); len(r) != 1 || !strings.HasPrefix(r[0], "CONNECT downloads.claude.ai:443") {
		t.Errorf("Refused() = %v", r)
	}
}
