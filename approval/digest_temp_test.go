package approval

// Tests of the TEMPORARY digest (digest_temp.go); they go with it when
// provenance lands.

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/testutil"
)

func TestDigestsMatchTheProtocolExamples(t *testing.T) {
	if d, err := inputDigest("Bash", json.RawMessage(exampleInput)); err != nil || d != exampleDigest {
		t.Fatalf("input digest %s %v, want %s (PROTOCOL-2.1.330.md §7)", d, err, exampleDigest)
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
		got, err := inputDigest("T", json.RawMessage(in))
		if err != nil || got != want[i] {
			t.Errorf("digest of %s = %s %v, want %s", in, got, err, want[i])
		}
	}
}
