package claudeversion

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Version{
		"2.1.330 (Claude Code)\n": {2, 1, 330},
		"2.1.88 (Claude Code)":    {2, 1, 88},
		"v1.0.128":                {1, 0, 128},
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "Claude Code", "command not found"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestFeaturesAtCutOvers(t *testing.T) {
	v := func(p int) Version { return Version{2, 1, p} }
	tests := []struct {
		v    Version
		want Features
	}{
		{v(88), Features{TeammateMode: true}},
		{v(201), Features{TeammateMode: true}},
		{v(202), Features{}},
		{v(316), Features{}},
		{v(317), Features{PermissionAlways: true}},
		{v(322), Features{PermissionAlways: true}},
		{v(323), Features{PermissionAlways: true, LeadVerifyKey: true}},
		{v(330), Features{PermissionAlways: true, LeadVerifyKey: true}},
		{Version{3, 0, 0}, Features{PermissionAlways: true, LeadVerifyKey: true}},
		{Version{}, Features{PermissionAlways: true, LeadVerifyKey: true}},
	}
	for _, tc := range tests {
		if got := tc.v.Features(); got != tc.want {
			t.Errorf("%v: %+v, want %+v", tc.v, got, tc.want)
		}
	}
}

// TestDetectRemembersPerBinary: --version runs once per binary; a changed
// binary (an update) is asked again.
func TestDetectRemembersPerBinary(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	bin := filepath.Join(dir, "claude")
	script := func(v string) string {
		return "#!/bin/sh\necho x >> " + calls + "\necho '" + v + " (Claude Code)'\n"
	}
	testutil.WriteExecutable(t, bin, []byte(script("2.1.300")))
	d := Detector{CacheFile: filepath.Join(dir, "state", "versions.json")}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		v, err := d.Detect(ctx, bin)
		if err != nil || v != (Version{2, 1, 300}) {
			t.Fatalf("Detect: %v %v", v, err)
		}
	}
	if n := countLines(calls); n != 1 {
		t.Errorf("--version ran %d times for one binary, want 1", n)
	}
	testutil.WriteExecutable(t, bin, []byte(script("2.1.330")))
	later := time.Now().Add(time.Minute)
	os.Chtimes(bin, later, later)
	if v, _ := d.Detect(ctx, bin); v != (Version{2, 1, 330}) {
		t.Errorf("after an update: %v", v)
	}
	if n := countLines(calls); n != 2 {
		t.Errorf("--version ran %d times, want 2", n)
	}
	testutil.WriteExecutable(t, bin, []byte("#!/bin/sh\necho 'no version here'\n"))
	os.Chtimes(bin, later.Add(time.Minute), later.Add(time.Minute))
	if _, err := d.Detect(ctx, bin); err == nil || !strings.Contains(err.Error(), "not a Claude Code version") {
		t.Errorf("a binary that is not Claude Code: %v", err)
	}
}

func countLines(p string) int {
	b, _ := os.ReadFile(p)
	return strings.Count(string(b), "\n")
}

// TestDetectRealReleases asks real Claude Code releases: the tested one
// and an older, Node-bundle one.
func TestDetectRealReleases(t *testing.T) {
	for _, rel := range []string{Tested.String(), "2.1.88"} {
		bin := testutil.ClaudeReleaseBin(t, rel)
		v, err := Detector{}.Detect(context.Background(), bin)
		if err != nil || v.String() != rel {
			t.Errorf("%s: detected %v, %v", rel, v, err)
		}
	}
}
