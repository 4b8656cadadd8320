// Package program finds and runs other programs: where a program is on a
// PATH that may be another process's (a lead's, a caller's), and one call
// whose output is read and whose failure names the call and what the
// program said.
package program

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Executable reports whether p names a file that may be run: it exists,
// is not a folder and has an execute bit set.
func Executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Find is the program name in the first folder of path (a PATH value,
// often captured from another process, not this one's) that holds it as
// an executable file. It fails with exec.ErrNotFound. An empty or
// relative entry is skipped, as os/exec's LookPath refuses one
// (exec.ErrDot): paneteam runs what it finds at once, often from a
// teammate's folder, where a program found through "." would be one the
// teammate planted.
func Find(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if Executable(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// Lookup is the program name means, as a shell runs it: name itself
// when it holds a slash (a path, relative to the current folder or not,
// which must be an executable file), else Find's answer on path.
func Lookup(name, path string) (string, error) {
	if !strings.Contains(name, "/") {
		return Find(name, path)
	}
	st, err := os.Stat(name)
	if err != nil {
		return "", err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	return name, nil
}
