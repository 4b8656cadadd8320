package profile

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// Locate finds the profile's program on path (a PATH value, often the one
// captured when paneteam started, not this process's); a program given
// as a path is taken as it is. Missing, it says how to install it.
func (p *Profile) Locate(path string) (string, error) {
	if strings.Contains(p.Program, "/") {
		return exec.LookPath(p.Program)
	}
	found, err := program.Find(p.Program, path)
	if err != nil {
		return "", fmt.Errorf("%s (%s) is not installed: %s is not on PATH; install it with '%s'", p.Title, p.Name, p.Program, p.Install)
	}
	return found, nil
}
