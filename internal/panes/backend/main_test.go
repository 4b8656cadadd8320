package backend_test

import (
	"os"
	"testing"

	"github.com/paneteam/paneteam/iterm2/it2test"
)

func TestMain(m *testing.M) {
	code := m.Run()
	it2test.Cleanup()
	os.Exit(code)
}
