package cli

import (
	"os"
	"testing"

	"github.com/paneteam/paneteam/internal/testutil"
	"github.com/paneteam/paneteam/iterm2/it2test"
	"github.com/paneteam/paneteam/lockfile"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.Cleanup()
	it2test.Cleanup()
	os.Exit(code)
}

func lockOptsDefault() lockfile.Options { return lockfile.Options{} }
