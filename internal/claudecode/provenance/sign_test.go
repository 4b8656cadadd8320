package provenance

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// The worked example of docs/PROTOCOL.md §11, checked there with Node
// and Claude Code's own code.
const (
	exampleFrame  = `{"type":"shutdown_request","requestId":"shutdown-1767225600000@worker1","from":"team-lead","reason":"Work is done","timestamp":"2026-01-01T00:00:00.000Z"}`
	exampleSigned = `["claude-team-lead-entry-v1","6f9c1d2e-8a7b-4c3d-9e0f-112233445566","team-lead","2026-01-01T00:00:00.000Z","{\"type\":\"shutdown_request\",\"requestId\":\"shutdown-1767225600000@worker1\",\"from\":\"team-lead\",\"reason\":\"Work is done\",\"timestamp\":\"2026-01-01T00:00:00.000Z\"}",null,null,null]`
	exampleFlag   = "1767225590000.MCowBQYDK2VwAyEAA6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"
	exampleSig    = "AilaOLtULtbY3PmNlHuow3NJjPBZrqmdjXN9TTMPtrxLJKtxitIvvZivGGx61qoZNN8jgzwR2BqqT1nuR9GkDg"
)

func exampleKey(t *testing.T) *Key {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	k, err := KeyFromSeed(seed, 1767225590000)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestWorkedExample(t *testing.T) {
	k := exampleKey(t)
	if got := k.Flag(); got != exampleFlag {
		t.Errorf("flag\n got %s\nwant %s", got, exampleFlag)
	}
	e := Entry{MsgID: "6f9c1d2e-8a7b-4c3d-9e0f-112233445566", From: "team-lead", Timestamp: "2026-01-01T00:00:00.000Z", Text: exampleFrame}
	b := e.Bytes()
	if string(b) != exampleSigned || len(b) != 299 {
		t.Errorf("signed bytes (%d)\n got %s\nwant %s", len(b), b, exampleSigned)
	}
	sig, err := k.Sign(e)
	if err != nil {
		t.Fatal(err)
	}
	if sig != exampleSig {
		t.Errorf("lead_sig\n got %s\nwant %s", sig, exampleSig)
	}
	if err := Verify(exampleFlag, e, sig); err != nil {
		t.Errorf("Verify: %v", err)
	}
	e.Text += " "
	if Verify(exampleFlag, e, sig) == nil {
		t.Error("a changed text still verifies")
	}
}

func TestSignRefuses(t *testing.T) {
	k := exampleKey(t)
	ok := Entry{MsgID: "m", From: "team-lead", Timestamp: "2026-01-01T00:00:00.000Z", Text: "x"}
	for name, e := range map[string]Entry{
		"no msg_id":           {From: "team-lead", Timestamp: ok.Timestamp, Text: "x"},
		"not a lead name":     {MsgID: "m", From: "Team Lead", Timestamp: ok.Timestamp, Text: "x"},
		"before the window":   {MsgID: "m", From: "user", Timestamp: time.UnixMilli(k.Stamp - 121_000).UTC().Format("2006-01-02T15:04:05.000Z"), Text: "x"},
		"timestamp not parse": {MsgID: "m", From: "system", Timestamp: "yesterday", Text: "x"},
	} {
		if _, err := k.Sign(e); err == nil {
			t.Errorf("%s: signed", name)
		}
	}
	if _, err := k.Sign(ok); err != nil {
		t.Errorf("inside the window: %v", err)
	}
}

// TestNodeVerifies has Node check paneteam's signatures the way Claude
// Code 2.1.330 does (its own it() bytes function and crypto.verify), over
// texts where Go's and JavaScript's JSON differ.
func TestNodeVerifies(t *testing.T) {
	testutil.RequireTool(t, "node")
	k, err := NewKey(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	entries := []Entry{
		{MsgID: "a1", From: "team-lead", Timestamp: "2026-01-01T00:00:00.000Z", Text: "plain"},
		{MsgID: "a2", From: "user", Timestamp: "2026-01-01T00:00:00.000Z", Text: "<b>&amp;</b> \u2028\u2029 é 😀 \x00\x01\x1f\x7f \"q\" \\ / \t\n\r\b\f", Summary: str("sum <>"), Color: str("blue")},
		{MsgID: "a3", From: "system", Timestamp: "2026-01-01T00:00:00.000Z", Text: "", Summary: str(""), FromPlugin: str("plug\u00e9")},
	}
	type wire struct {
		Entry map[string]any `json:"entry"`
		Sig   string         `json:"sig"`
	}
	var in []wire
	for _, e := range entries {
		sig, err := k.Sign(e)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{"msg_id": e.MsgID, "from": e.From, "timestamp": e.Timestamp, "text": e.Text}
		for key, p := range map[string]*string{"summary": e.Summary, "color": e.Color, "from_plugin": e.FromPlugin} {
			if p != nil {
				m[key] = *p
			}
		}
		in = append(in, wire{m, sig})
	}
	data, _ := json.Marshal(map[string]any{"key": k.Flag(), "entries": in})
	script := `const c=require('crypto');let s='';process.stdin.on('data',d=>s+=d);process.stdin.on('end',()=>{
const {key,entries}=JSON.parse(s);const m=/^(\d+)\.([\w-]+)$/.exec(key);
const pub=c.createPublicKey({key:Buffer.from(m[2],'base64url'),format:'der',type:'spki'});
for(const {entry:e,sig} of entries){const b=Buffer.from(JSON.stringify(["claude-team-lead-entry-v1",e.msg_id,e.from,e.timestamp,e.text,e.summary??null,e.color??null,e.from_plugin??null]));
console.log(c.verify(null,b,pub,Buffer.from(sig,'base64url'))?'ok':'BAD '+e.msg_id)}})`
	cmd := exec.Command("node", "-e", script)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != "ok ok ok" {
		t.Errorf("node verification: %s", out)
	}
}
