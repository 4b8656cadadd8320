package agenttest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// 'paneteam agents' shows the version of each installed CLI, the real
// pinned releases, quickly: Gemini CLI's own --version takes seconds (over
// ten on a busy machine, when paneteam gave up and showed it as unknown),
// so the version comes from the npm package the program on PATH is.
func TestAgentsShowsInstalledVersions(t *testing.T) {
	var path []string
	for _, c := range []agenttest.CLI{agenttest.Codex, agenttest.Gemini, agenttest.OpenCode} {
		path = append(path, agenttest.Install(t, c))
	}
	home := t.TempDir()
	cmd := exec.Command(testutil.Binary(t), "agents", "--json")
	cmd.Env = testutil.Env("PATH="+path[0]+":"+path[1]+":"+path[2]+":"+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("paneteam agents --json: %v\n%s", err, out)
	}
	var rows []struct {
		Name, Version string
		Installed     bool
		TestedRelease bool
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("agents --json: %v\n%s", err, out)
	}
	want := map[string]string{"codex": agenttest.Codex.Version, "gemini": agenttest.Gemini.Version, "opencode": agenttest.OpenCode.Version}
	for _, r := range rows {
		if v, ok := want[r.Name]; ok {
			if !r.Installed || r.Version != v || !r.TestedRelease {
				t.Errorf("agents shows %s as %+v, want installed %s, a tested release", r.Name, r, v)
			}
			delete(want, r.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("agents does not list %v:\n%s", want, out)
	}
	t.Logf("paneteam agents took %s", took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Errorf("paneteam agents took %s: the versions should not need the CLIs to start", took)
	}
}
