package profile

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// versionTimeout bounds a program's version command: a large Node CLI
// takes seconds to start, a hung one must not hang the listing.
const versionTimeout = 10 * time.Second

// versionPattern is compiled on first use, not by every process.
var versionPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+\.\d+\.\d+`) })

// Locate is the profile's program: a path as given, else the program
// found on path (a PATH as the caller's environment has it, which need
// not be this process's).
func (p *Profile) Locate(path string) (string, error) {
	found, err := program.Lookup(p.Program, path)
	if errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("%s (%s) is not installed: %s is not on PATH; install it with '%s'", p.Title, p.Name, p.Program, p.Install)
	}
	return found, err
}

// Version is the release of the profile's program at path: its npm
// package's (PackageVersion), else the first x.y.z its VersionArgs print
// with the environment env, else "" (unknown).
func (p *Profile) Version(ctx context.Context, path string, env []string) string {
	if v, ok := PackageVersion(path, p.VersionPackage); ok {
		return v
	}
	if len(p.VersionArgs) == 0 {
		return ""
	}
	out, err := program.Output(ctx, program.Cmd{Path: path, Args: p.VersionArgs, Env: env, Timeout: versionTimeout})
	if err != nil && out == "" {
		return ""
	}
	return versionPattern().FindString(out)
}
