package cli

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// companionPath finds name, a program installed with paneteam
// (paneteam-mcp, paneteam-dashboard): $<envVar>, else the one built with
// this paneteam (beside it, named as it is with "paneteam" as name:
// paneteam-race has paneteam-mcp-race), else name beside it, else on PATH.
func companionPath(env Env, name, envVar string) (string, error) {
	if p := env.Getenv(envVar); p != "" {
		// A name or a path, as the person wrote it, run from this
		// process: exec.LookPath, whose error the person is shown.
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w: point it at the %s program, or unset it", envVar, p, err, name)
		}
		return p, nil
	}
	var tried []string
	if env.Exe != "" {
		exe := env.Exe
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		dir, base := filepath.Split(exe)
		for _, n := range []string{strings.Replace(base, "paneteam", name, 1), name} {
			p := filepath.Join(dir, n)
			if p == exe {
				continue // a paneteam built under another name: not the companion
			}
			if program.Executable(p) {
				return p, nil
			}
			tried = append(tried, p)
		}
	}
	if p, err := program.Find(name, env.Getenv("PATH")); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("paneteam needs the program %s, not found at %s nor on PATH: install it beside paneteam "+
		"with 'go install github.com/paneteam/paneteam/cmd/%s@latest' (or set %s)",
		name, strings.Join(uniq(tried), " or "), name, envVar)
}

// uniq drops repeats next to each other (the same path tried twice).
func uniq(s []string) []string {
	var out []string
	for _, v := range s {
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}
