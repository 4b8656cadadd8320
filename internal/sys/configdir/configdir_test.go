package configdir

import "testing"

func TestDir(t *testing.T) {
	for _, c := range []struct {
		xdg, home, want string
	}{
		{"/x/config", "/home/me", "/x/config/paneteam"},
		{"relative/config", "/home/me", "/home/me/.config/paneteam"}, // XDG: a relative value is ignored
		{"", "/home/me", "/home/me/.config/paneteam"},
		{"", "", ""},
		{"/x/config", "", "/x/config/paneteam"},
	} {
		env := map[string]string{"XDG_CONFIG_HOME": c.xdg, "HOME": c.home}
		if got := Dir(func(k string) string { return env[k] }); got != c.want {
			t.Errorf("Dir(XDG_CONFIG_HOME=%q HOME=%q) = %q, want %q", c.xdg, c.home, got, c.want)
		}
	}
}
