package provenance

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestDigestExamples(t *testing.T) {
	// docs/PROTOCOL.md §9.
	got, err := InputDigest("Bash", json.RawMessage(`{"timeout":120000,"description":"Run tests","command":"npm test"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "e4ac10ba6550f9f50de70a5b32c709be470c91397479351792e6c34b666633b1"; got != want {
		t.Errorf("input digest %s, want %s", got, want)
	}
	if got, want := PlanDigest("# Plan\n\n1. Edit main.go\n2. Run tests\n"), "578210cd64f61e98325097f5ce65c2e87ddfc7726269c9a37a75ddff94bd5e83"; got != want {
		t.Errorf("plan digest %s, want %s", got, want)
	}
	if _, err := InputDigest("Bash", json.RawMessage(`{"a":`)); err == nil {
		t.Error("a broken input was digested")
	}
}

// digestScript is Claude Code 2.1.330's own digest code (kae, l and W0n,
// read from its bundle), run over permission_request frames.
const digestScript = `const {createHash:x}=require('crypto');var b=32;
function kae(e,r){return x("sha256").update(e).update("\x00").update(JSON.stringify(l(r))).digest("hex")}
function l(e,r=0){if(r>b)return e;if(Array.isArray(e))return e.map((n)=>l(n,r+1));if(typeof e==="object"&&e!==null)return Object.fromEntries(Object.entries(e).sort(([n],[s])=>n<s?-1:n>s?1:0).map(([n,s])=>[n,l(s,r+1)]));return e}
function W0n(e,r,n={}){let s=n.tool_kind==="mcp_skill"||n.mcp_skill!==void 0?{name:e+"#mcp_skill",wire:{input:r,mcp_server:n.mcp_server,mcp_skill:n.mcp_skill,description:n.description,permission_suggestions:n.permission_suggestions}}:void 0,o=JSON.parse(JSON.stringify(s?.wire??r));return kae(s?.name??e,o)}
let s='';process.stdin.on('data',d=>s+=d);process.stdin.on('end',()=>{for(const t of JSON.parse(s)){const q=JSON.parse(t);console.log(W0n(q.tool_name,q.input,q))}})`

func TestRequestDigestMatchesNode(t *testing.T) {
	testutil.RequireTool(t, "node")
	frames := []string{
		`{"type":"permission_request","tool_name":"Bash","input":{"timeout":120000,"description":"Run tests","command":"npm test"}}`,
		`{"tool_name":"Edit","input":{"file_path":"/tmp/a.go","old_string":"x < y && z","new_string":"é\u2028😀\u0000","replace_all":false}}`,
		`{"tool_name":"T","input":{"n":[1e21,1e-7,-0,0.1,12345678901234567890,1.50,2E3],"10":1,"9":2,"b":{"\ue000":1,"😀":2,"a":null}}}`,
		`{"tool_name":"T","input":{"lone":"\ud800","pair":"\ud83d\ude00","k\udc00":true}}`,
		`{"tool_name":"T","input":"just a string"}`,
		`{"tool_name":"T","input":{"dup":1,"a":2,"dup":3},"tool_use_id":"toolu_1"}`,
		`{"tool_name":"Skill","tool_kind":"mcp_skill","input":{"q":1},"mcp_server":{"source":"s","name":"srv"},"mcp_skill":{"version":"1","name":"sk","uri":"u"},"description":"d","permission_suggestions":[]}`,
		`{"tool_name":"Skill","input":{"q":1},"mcp_skill":{"name":"sk"}}`,
		`{"tool_name":"mcp__srv__tool","tool_kind":"other","input":{"z":{"y":{"x":[{"b":1,"a":2}]}}}}`,
	}
	var deep strings.Builder
	deep.WriteString(`{"tool_name":"Deep","input":`)
	for i := 0; i < 40; i++ {
		deep.WriteString(`{"z":1,"a":`)
	}
	deep.WriteString(`[{"d":1,"c":2}]`)
	deep.WriteString(strings.Repeat("}", 40) + "}")
	frames = append(frames, deep.String())

	in, _ := json.Marshal(frames)
	cmd := exec.Command("node", "-e", digestScript)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	want := strings.Fields(string(out))
	if len(want) != len(frames) {
		t.Fatalf("node: %s", out)
	}
	for i, f := range frames {
		got, err := RequestDigest(json.RawMessage(f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if got != want[i] {
			t.Errorf("digest of %s\n got %s\nwant %s", f, got, want[i])
		}
	}
}
