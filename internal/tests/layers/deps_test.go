package layers

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A team lookup (teamfind: which team a command means, whether a Claude
// teammate's pane is alive) runs on every command that leaves --team
// out, the status line's included: it reads paneteam's virtual tmux state
// (internal/panes/virtualtmux) and links no terminal driver, whose
// packages and their initialisation every such start would pay for.
func TestTeamLookupLinksNoTerminalDriver(t *testing.T) {
	root := moduleRoot(t)
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(gobin, "list", "-deps", "./internal/core/teamfind")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./internal/core/teamfind: %v\n%s", err, stderr.Bytes())
	}
	drivers := []string{"internal/panes/native", "internal/panes/shim"}
	for _, dep := range strings.Fields(string(out)) {
		for _, d := range drivers {
			if p := module + "/" + d; dep == p || strings.HasPrefix(dep, p+"/") {
				t.Errorf("internal/core/teamfind links %s, a terminal driver: read the virtual servers' state through internal/panes/virtualtmux", dep)
			}
		}
	}
}
