package testutil

import (
	"bytes"
	"os/exec"
	"testing"
)

// JSStringify re-encodes data with JavaScript's JSON.stringify(JSON.parse(data),
// null, 2): the bytes Claude Code would write for the same value. Equal
// output proves paneteam lays a file out exactly as Claude Code does.
func JSStringify(t testing.TB, data []byte) []byte {
	t.Helper()
	RequireTool(t, "node")
	cmd := exec.Command("node", "-e", `let s='';process.stdin.setEncoding('utf8');`+
		`process.stdin.on('data',d=>s+=d);process.stdin.on('end',()=>process.stdout.write(JSON.stringify(JSON.parse(s),null,2)));`)
	cmd.Stdin = bytes.NewReader(data)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node JSON.stringify: %v: %s", err, errb.String())
	}
	return out.Bytes()
}
