package prices

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/usage"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// The refresh script's converter, run on a package shaped like
// @pydantic/genai-prices (its table inside its bundle, strings holding
// brackets, code around it that must not run), writes a table this
// package reads and prices by.
func TestRefreshConvertsThePackagesTable(t *testing.T) {
	node := testutil.RequireTool(t, "node")
	scripts := filepath.Join(testutil.ModuleRoot(), "scripts", "genai-prices")
	cmd := exec.Command(node, filepath.Join(scripts, "convert.mjs"), filepath.Join(scripts, "testdata", "package"), "2026-11-27")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("convert: %v: %s", err, stderr.String())
	}
	var raw struct {
		Source    string     `json:"source"`
		Date      string     `json:"date"`
		Providers []provider `json:"providers"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatalf("the converted table does not read: %v\n%s", err, out)
	}
	if raw.Source != "npm @pydantic/genai-prices@9.9.9" || raw.Date != "2026-11-27" {
		t.Fatalf("source %q, date %q: want the package's name and version, and the date given", raw.Source, raw.Date)
	}
	table := Table{Source: raw.Source, Date: raw.Date, providers: raw.Providers}
	usd, unpriced := table.Cost(usage.Spend{Models: map[string]usage.Model{
		"claude-t20260101": {Tokens: usage.Tokens{Input: 1e6, Output: 1e6, CacheRead: 1e6, CacheWrite: 1e6}},
		"claude-long":      {Tokens: usage.Tokens{Input: 1e6, Output: 1e6}},
	}})
	if len(unpriced) > 0 || !near(usd, 3+15+0.3+3.75+2+10) {
		t.Fatalf("converted prices: $%v (unpriced %v), want $34.05 (the dated price in force)", usd, unpriced)
	}
	if bytes.Contains(out, []byte("requests_kcount")) || bytes.Contains(out, []byte("description")) {
		t.Fatalf("the table keeps more than token prices:\n%s", out)
	}
}

func TestLookaheadPatterns(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{`^(?!.*-[tT][tT][sS](?:$|-))`, "gemini-2.5-pro", true},
		{`^(?!.*-[tT][tT][sS](?:$|-))`, "gemini-2.5-pro-tts", false},
		{`^(?![^/]+/)(?:labs-)?(?:mi|code)stral`, "mistral-large", true},
		{`^(?![^/]+/)(?:labs-)?(?:mi|code)stral`, "x/mistral-large", false},
		{`^o[134]`, "o3-mini", true},
	} {
		f := compiled(c.pattern)
		if f == nil || f(c.name) != c.want {
			t.Errorf("%s on %q: want %v", c.pattern, c.name, c.want)
		}
	}
}

// The refresh script fetches the package with npm (here a stand-in that
// packs the test's package), converts it and writes the table dated
// today.
func TestRefreshScript(t *testing.T) {
	testutil.RequireTool(t, "node")
	testutil.RequireTool(t, "tar")
	scripts := filepath.Join(testutil.ModuleRoot(), "scripts", "genai-prices")
	bin, out := t.TempDir(), filepath.Join(t.TempDir(), "table.json")
	fake := "#!/bin/sh\n" +
		"# npm pack --silent @pydantic/genai-prices@VERSION, from the test's package\n" +
		`[ "$1" = pack ] && [ "$3" = "@pydantic/genai-prices@7.7.7" ] || { echo "unexpected npm $*" >&2; exit 1; }` + "\n" +
		"tar -czf pydantic-genai-prices-7.7.7.tgz -C " + filepath.Join(scripts, "testdata") + " package\n"
	testutil.WriteExecutable(t, filepath.Join(bin, "npm"), []byte(fake))
	cmd := exec.Command(filepath.Join(scripts, "refresh"), "7.7.7")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "PANETEAM_PRICES_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("refresh: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var head struct{ Source, Date string }
	json.Unmarshal(b, &head)
	if head.Source != "npm @pydantic/genai-prices@9.9.9" || head.Date != time.Now().UTC().Format(time.DateOnly) {
		t.Fatalf("refreshed table: source %q, date %q; want the package's and today's", head.Source, head.Date)
	}
}
