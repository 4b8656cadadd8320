package nativetest

import (
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	flags := []Flag{{Names: []string{"--cwd"}, Value: true}, {Names: []string{"--close-on-exit", "-c"}}}
	f, rest, err := ParseArgs([]string{"-c", "--cwd=/a b", "--", "prog", "--cwd", "x"}, flags, true, "u")
	if err != nil || f["--cwd"] != "/a b" || !reflect.DeepEqual(rest, []string{"prog", "--cwd", "x"}) {
		t.Errorf("got %v %q %v", f, rest, err)
	}
	if _, ok := f["--close-on-exit"]; !ok {
		t.Error("-c not recorded under --close-on-exit")
	}
	for _, bad := range [][]string{{"--percent", "5"}, {"--cwd"}, {"-c=1"}, {"--cwd", "a", "--cwd", "b"}} {
		if _, _, err := ParseArgs(bad, flags, true, "u"); err == nil {
			t.Errorf("%q accepted", bad)
		} else if _, ok := err.(*UsageError); !ok {
			t.Errorf("%q: %v is not a usage error", bad, err)
		}
	}
}
