package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// releasePattern is compiled on first use: every paneteam process
// initialises this package, and only listings of agents read versions.
var releasePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+`) })

// packageLevels is how many folders up from the resolved program
// PackageVersion looks for its package.json (npm puts programs in
// bin/, bundle/ or dist/ of the package, at most a level or two down).
const packageLevels = 4

// PackageVersion is the version of the npm package pkg that the program
// at path belongs to. The program is followed through its symbolic links
// (npm's node_modules/.bin/NAME and a global install's bin/NAME link into
// the package), then the nearest package.json above it must be pkg's:
// its "version" is the release that runs. ok is false when the program is
// not part of pkg (a wrapper script, another packaging), so the caller
// can ask the program itself.
func PackageVersion(path, pkg string) (version string, ok bool) {
	if pkg == "" {
		return "", false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	dir := filepath.Dir(real)
	for i := 0; i < packageLevels; i++ {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var meta struct{ Name, Version string }
			if json.Unmarshal(b, &meta) != nil || meta.Name != pkg {
				return "", false
			}
			v := releasePattern().FindString(meta.Version)
			return v, v != ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}
