package testutil

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// The folders paneteam (and what it starts: tmux servers and their panes,
// kitty, the agent CLIs) would otherwise write under the developer's HOME.
// Every test process that imports testutil sets them, at init, to folders
// of its own, so that a test which forgets to pass one still leaves the
// person's ~/.local/state/paneteam and ~/.config alone: a tmux server a
// test starts copies them into its global environment, and so every pane
// it opens has them.
var testFolderVars = []string{"PANETEAM_STATE_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME"}

// foldersVar names the process's folder, so that a program the test starts
// which is itself a test binary (a re-run of os.Args[0]) shares it instead
// of making another.
const foldersVar = "PANETEAM_TEST_FOLDERS"

// testFolders is this process's folder ("" outside a test binary), and
// folderVals what testFolderVars were set to in it.
var (
	testFolders string
	folderVals  = map[string]string{}
)

func init() {
	if !testing.Testing() {
		return
	}
	dir, err := setTestFolders()
	if err != nil {
		// No folder of its own: refuse to run rather than write into
		// the person's HOME.
		panic(fmt.Sprintf("testutil: a state and config folder for this test process: %v", err))
	}
	testFolders = dir
}

// setTestFolders makes (or, when a parent test process made one, reuses)
// the process's folder and points testFolderVars into it, whatever the
// developer's shell set them to: a test must not write into the real ones.
func setTestFolders() (string, error) {
	dir := os.Getenv(foldersVar)
	if dir == "" || !filepath.IsAbs(dir) {
		parent := foldersParent()
		if err := os.MkdirAll(parent, 0o700); err != nil {
			return "", err
		}
		sweepFolders(parent)
		var err error
		if dir, err = os.MkdirTemp(parent, strconv.Itoa(os.Getpid())+".*"); err != nil {
			return "", err
		}
	}
	vals := map[string]string{
		"PANETEAM_STATE_DIR": filepath.Join(dir, "state", "paneteam"),
		"XDG_STATE_HOME":     filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME":    filepath.Join(dir, "config"),
		foldersVar:           dir,
	}
	for k, v := range vals {
		if err := os.Setenv(k, v); err != nil {
			return "", err
		}
		folderVals[k] = v
	}
	return dir, nil
}

// foldersParent holds one folder per test process of this checkout, beside
// the test binaries (Binary): a process cannot remove its own at exit (no
// hook runs then), so each new one removes those whose process has ended,
// and test runs leave at most the last run's behind, in the temp folder.
func foldersParent() string {
	sum := sha256.Sum256([]byte(ModuleRoot()))
	return filepath.Join(os.TempDir(), fmt.Sprintf("paneteam-test-home-%x", sum[:6]))
}

// sweepFolders removes the folders in parent ("<pid>.<random>") whose test
// process is gone.
func sweepFolders(parent string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		name := e.Name()
		i := 0
		for i < len(name) && name[i] >= '0' && name[i] <= '9' {
			i++
		}
		pid, err := strconv.Atoi(name[:i])
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // still running (or another user's)
		}
		os.RemoveAll(filepath.Join(parent, name))
	}
}

// StateDir is the state folder every paneteam a test starts uses unless
// the test gives one (PANETEAM_STATE_DIR) or a HOME of its own: the test
// process's, shared by its tests. A test that reads launch records, keys
// or budgets should give its own folder instead.
func StateDir() string { return os.Getenv("PANETEAM_STATE_DIR") }

// ownHome reports whether a test's environment gives a HOME that is not
// the test process's own, in which case the test-wide folders step aside
// and paneteam works them out from that HOME as it would for a person
// (the test made that HOME, in a temporary folder, and checks what lands
// there).
func ownHome(home string, given bool) bool {
	return given && home != os.Getenv("HOME")
}

// isTestFolder reports whether KEY=VALUE is one of the test-wide folders
// as init set it (not as a test set it since, with t.Setenv).
func isTestFolder(key, value string) bool {
	v, ok := folderVals[key]
	return ok && v == value
}
