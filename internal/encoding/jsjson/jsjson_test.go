package jsjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// nodeScript reads a JSON array of JSON texts and prints, per text, one
// line holding JSON.stringify of [JSON.stringify(JSON.parse(t)),
// canonical(t)], canonical being Claude Code 2.1.330's own sort (the
// function read from its bundle, docs/PROTOCOL.md §9).
const nodeScript = `
const b=32;
function l(e,r=0){if(r>b)return e;if(Array.isArray(e))return e.map((n)=>l(n,r+1));if(typeof e==="object"&&e!==null)return Object.fromEntries(Object.entries(e).sort(([n],[s])=>n<s?-1:n>s?1:0).map(([n,s])=>[n,l(s,r+1)]));return e}
let s='';process.stdin.setEncoding('utf8');process.stdin.on('data',d=>s+=d);
process.stdin.on('end',()=>{for(const t of JSON.parse(s)){const v=JSON.parse(t);
process.stdout.write(JSON.stringify([JSON.stringify(v),JSON.stringify(l(JSON.parse(JSON.stringify(v))))])+"\n")}});`

// node runs nodeScript on texts. The answer is read back through
// encoding/json, which would turn a lone surrogate into U+FFFD, so lone
// surrogates are compared through their escaped form: the outer
// JSON.stringify escapes them, and the strings are compared as JSON text.
func node(t *testing.T, texts []string) [][2]string {
	t.Helper()
	testutil.RequireTool(t, "node")
	in, _ := json.Marshal(texts)
	cmd := exec.Command("node", "-e", nodeScript)
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v: %s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(texts) {
		t.Fatalf("node gave %d lines for %d texts", len(lines), len(texts))
	}
	res := make([][2]string, len(lines))
	for i, line := range lines {
		v, err := Parse([]byte(line))
		if err != nil {
			t.Fatalf("node line %q: %v", line, err)
		}
		a := v.([]any)
		res[i] = [2]string{a[0].(string), a[1].(string)}
	}
	return res
}

var cases = []string{
	// numbers
	`0`, `-0`, `1`, `-1`, `0.1`, `120000`, `1e21`, `1e20`, `123456789012345678901`, `1e-7`, `1e-6`, `0.000001`,
	`0.0000001234`, `1.5e300`, `-1.5e-300`, `5e-324`, `1.7976931348623157e308`, `1e400`, `-1e400`, `1e-400`,
	`12345678901234567890`, `9007199254740993`, `0.1e1`, `100E-2`, `2.5E+3`, `123.456`, `1e0`, `4.35`, `0.30000000000000004`,
	`[1.0, 2.50, -0.0, 1E2]`,
	// strings
	`"plain"`, `"quote \" backslash \\ slash \/"`, `"\b\f\n\r\t"`, `"\u0000\u0001\u001f\u007f"`, `"<>&"`,
	`"\u2028\u2029"`, `"é ü 中文"`, `"😀 \ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, `"\ud83d"`, `"a\ude00\ud83d"`,
	`"\uffff\ufffe\ue000"`,
	// objects: key order, integer keys, unicode keys, duplicates, nesting
	`{"timeout":120000,"description":"Run tests","command":"npm test"}`,
	`{"b":1,"a":2,"10":3,"9":4,"01":5,"4294967294":6,"4294967295":7,"-1":8}`,
	`{"\ue000":1,"😀":2,"z":3,"é":4,"Z":5,"":6}`,
	`{"a":1,"b":2,"a":3}`,
	`{"z":{"y":[{"b":1,"a":[3,{"d":null,"c":true}]}],"x":false},"__proto__":{"q":1}}`,
	`[]`, `{}`, `[[],{},[{}]]`, `null`, `true`,
	`{"\ud800":1,"\udbff\udfff":2,"\uffff":3}`,
}

func TestAgainstNode(t *testing.T) {
	texts := append([]string(nil), cases...)
	texts = append(texts, deep(40), deep(33), deep(32))
	want := node(t, texts)
	for i, text := range texts {
		v, err := Parse([]byte(text))
		if err != nil {
			t.Errorf("Parse(%s): %v", text, err)
			continue
		}
		plain, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		canon, err := Marshal(Canonical(v))
		if err != nil {
			t.Fatal(err)
		}
		if string(plain) != want[i][0] {
			t.Errorf("JSON.stringify(JSON.parse(%s))\n got %s\nwant %s", text, plain, want[i][0])
		}
		if string(canon) != want[i][1] {
			t.Errorf("canonical(%s)\n got %s\nwant %s", text, canon, want[i][1])
		}
	}
}

// deep nests objects n levels with keys out of order at every level.
func deep(n int) string {
	s := `{"b":1,"a":2}`
	for i := 0; i < n; i++ {
		s = `{"z":` + s + `,"m":[` + s + `],"a":0}`
		if len(s) > 1<<16 {
			s = `{"z":` + strings.Repeat(`{"y":1,"x":`, n-i) + `0` + strings.Repeat(`}`, n-i) + `,"a":0}`
			break
		}
	}
	return s
}

func TestStringFromGo(t *testing.T) {
	// Go strings that do not come from JSON: invalid bytes become U+FFFD,
	// a surrogate written as WTF-8 is a lone surrogate.
	tests := []struct{ in, want string }{
		{"a\x00b\x1f\x7f", `"a\u0000b\u001f` + "\x7f" + `"`},
		{"bad \xff byte", "\"bad \uFFFD byte\""},
		{"lone \xed\xa0\x80", `"lone \ud800"`},
		{"pair \xed\xa0\xbd\xed\xb8\x80", "\"pair \U0001F600\""},
		{"</script>&\u2028", "\"</script>&\u2028\""},
	}
	for _, tc := range tests {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestNumberEdges(t *testing.T) {
	for f, want := range map[float64]string{math.Copysign(0, -1): "0", math.NaN(): "null", math.Inf(1): "null", 1e21: "1e+21", 1e-7: "1e-7", 123e-20: "1.23e-18"} {
		if got := FormatNumber(f); got != want {
			t.Errorf("FormatNumber(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, bad := range []string{``, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `"\x"`, "\"a\nb\"", `tru`, `{"a" 1}`, `1 2`, `NaN`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted it", bad)
		}
	}
}

// Too deep is told apart from not JSON: JSON.parse reads any depth.
func TestParseTooDeep(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+2) + strings.Repeat("]", MaxNesting+2)
	if _, err := Parse([]byte(deep)); !errors.Is(err, ErrTooDeep) || !errors.Is(err, ErrSyntax) {
		t.Errorf("Parse of %d nested arrays: %v, want ErrTooDeep and ErrSyntax", MaxNesting+2, err)
	}
	ok := strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("Parse of %d nested arrays: %v", MaxNesting, err)
	}
	if _, err := Parse([]byte(`[1,]`)); errors.Is(err, ErrTooDeep) {
		t.Errorf("a syntax error reads as too deep: %v", err)
	}
}
