package approval

// These check whatever digest sits behind the seams (digest.go), the
// temporary one now and provenance's after the merge, against the
// protocol's examples and Claude Code 2.1.330's own code run by node.

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestDigestsMatchTheProtocolExamples(t *testing.T) {
	if d, err := provenance.InputDigest("Bash", json.RawMessage(exampleInput)); err != nil || d != exampleDigest {
		t.Fatalf("input digest %s %v, want %s (docs/PROTOCOL.md §9)", d, err, exampleDigest)
	}
	if d := planDigest(examplePlan); d != examplePlanD {
		t.Fatalf("plan digest %s, want %s", d, examplePlanD)
	}
}

// TestInputDigestMatchesClaudeCodesCode runs Claude Code 2.1.330's own
// digest function (copied from its bundle) under node on inputs where Go's
// JSON habits differ from JavaScript's.
func TestInputDigestMatchesClaudeCodesCode(t *testing.T) {
	testutil.RequireTool(t, "node")
	inputs := []string{
		exampleInput,
		`{"b":1,"a":[3,{"z":true,"y":null}],"10":"ten","2":"two","":0}`,
		`{"n":[1e21,1e-7,0.1,100,1.5e300,-0,123456789012345678901,5e-324,1E2,2.50]}`,
		`{"s":"<&>\u2028\u0007\"\\/é😀","é":1,"e":2,"Z":3}`,
		`{"dup":1,"dup":2}`,
	}
	js := `const c=require("crypto");const b=32;function l(e,r=0){if(r>b)return e;if(Array.isArray(e))return e.map((n)=>l(n,r+1));` +
		`if(typeof e==="object"&&e!==null)return Object.fromEntries(Object.entries(e).sort(([n],[s])=>n<s?-1:n>s?1:0).map(([n,s])=>[n,l(s,r+1)]));return e}` +
		`const lines=require("fs").readFileSync(0,"utf8").split("\n").filter(Boolean);` +
		`for(const x of lines){process.stdout.write(c.createHash("sha256").update("T").update("\x00").update(JSON.stringify(l(JSON.parse(x)))).digest("hex")+"\n")}`
	cmd := exec.Command("node", "-e", js)
	cmd.Stdin = strings.NewReader(strings.Join(inputs, "\n") + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v %s", err, errb.String())
	}
	want := strings.Fields(out.String())
	for i, in := range inputs {
		got, err := provenance.InputDigest("T", json.RawMessage(in))
		if err != nil || got != want[i] {
			t.Errorf("digest of %s = %s %v, want %s", in, got, err, want[i])
		}
	}
}

// TestMCPSkillDigestMatchesClaudeCodesCode checks requestDigest's MCP-skill
// wire (W0n in Claude Code 2.1.330's bundle) with node.
func TestMCPSkillDigestMatchesClaudeCodesCode(t *testing.T) {
	testutil.RequireTool(t, "node")
	frame := `{"type":"permission_request","request_id":"perm-1-aaaaaaa","agent_id":"alice","tool_name":"Skill","tool_use_id":"t1",` +
		`"description":"run skill","input":{"skill":"deploy","args":{"b":2,"a":1}},"tool_kind":"mcp_skill",` +
		`"mcp_server":{"name":"srv","source":"project"},"mcp_skill":{"name":"deploy","version":"1.0","uri":"skill://deploy"}}`
	js := `const c=require("crypto");const b=32;function l(e,r=0){if(r>b)return e;if(Array.isArray(e))return e.map((n)=>l(n,r+1));` +
		`if(typeof e==="object"&&e!==null)return Object.fromEntries(Object.entries(e).sort(([n],[s])=>n<s?-1:n>s?1:0).map(([n,s])=>[n,l(s,r+1)]));return e}` +
		`function kae(e,r){return c.createHash("sha256").update(e).update("\x00").update(JSON.stringify(l(r))).digest("hex")}` +
		`function W0n(e,r,n={}){let s=n.tool_kind==="mcp_skill"||n.mcp_skill!==void 0?{name:e+"#mcp_skill",wire:{input:r,mcp_server:n.mcp_server,` +
		`mcp_skill:n.mcp_skill,description:n.description,permission_suggestions:n.permission_suggestions}}:void 0,o=JSON.parse(JSON.stringify(s?.wire??r));return kae(s?.name??e,o)}` +
		`const f=JSON.parse(require("fs").readFileSync(0,"utf8"));process.stdout.write(W0n(f.tool_name,f.input,f))`
	cmd := exec.Command("node", "-e", js)
	cmd.Stdin = strings.NewReader(frame)
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	r, ok := parse(entry("alice", frame, t0))
	if !ok {
		t.Fatal("frame not parsed")
	}
	got, err := requestDigest(r)
	if err != nil || got != string(want) {
		t.Fatalf("MCP-skill digest %s %v, want %s", got, err, want)
	}
}
