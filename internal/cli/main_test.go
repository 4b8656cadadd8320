package cli

import (
	"os"
	"testing"

	"github.com/paneteam/paneteam/iterm2/it2test"
	"github.com/paneteam/paneteam/lockfile"
)

func TestMain(m *testing.M) {
	code := m.Run()
	it2test.Cleanup()
	os.Exit(code)
}

func lockOptsDefault() lockfile.Options { return lockfile.Options{} }
