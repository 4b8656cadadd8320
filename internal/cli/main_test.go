package cli

import (
	"os"
	"testing"

	"github.com/paneteam/paneteam/internal/testutil"
	"github.com/paneteam/paneteam/lockfile"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.Cleanup()
	os.Exit(code)
}

func lockOptsDefault() lockfile.Options { return lockfile.Options{} }
