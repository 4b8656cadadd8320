package remote

import (
	"strings"
	"testing"
	"time"
)

func TestFactsCheck(t *testing.T) {
	ok := Facts{OS: "Linux", Arch: "x86_64", Home: "/home/a", ConfigDir: "/home/a/.claude", SSHFS: "/usr/bin/sshfs", Fuse: "ok"}
	if err := ok.check("h"); err != nil {
		t.Fatalf("a good host refused: %v", err)
	}
	for _, c := range []struct {
		change func(*Facts)
		says   string
	}{
		{func(f *Facts) { f.OS = "Darwin" }, "Linux hosts only"},
		{func(f *Facts) { f.SSHFS = "" }, "apt-get install sshfs"},
		{func(f *Facts) { f.Fuse = "missing" }, "modprobe fuse"},
		{func(f *Facts) { f.Fuse = "denied" }, "cannot open /dev/fuse"},
		{func(f *Facts) { f.Skew = -5 * time.Second }, "5s behind"},
		{func(f *Facts) { f.Skew = 4 * time.Second }, "4s ahead of"},
		{func(f *Facts) { f.ConfigDir = "" }, "home folder"},
	} {
		f := ok
		c.change(&f)
		if err := f.check("h"); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: %v, want it to say %q", f, err, c.says)
		}
	}
	f := ok
	f.Skew = MaxSkew
	if err := f.check("h"); err != nil {
		t.Errorf("a skew of %s refused: %v", MaxSkew, err)
	}
}

func TestSkew(t *testing.T) {
	before := time.Unix(1000, 300e6)
	after := time.Unix(1001, 100e6)
	for now, want := range map[int64]time.Duration{1000: 0, 1001: 0, 999: -300 * time.Millisecond, 1005: 3900 * time.Millisecond, 990: -9300 * time.Millisecond} {
		if got := skew(now, before, after); got != want {
			t.Errorf("skew(%d) = %s, want %s", now, got, want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"ssh":                              "ssh",
		"ssh -F /a/b":                      "ssh|-F|/a/b",
		`ssh -F '/a b/c'`:                  "ssh|-F|/a b/c",
		`ssh -o "ProxyCommand=nc %h %p" x`: "ssh|-o|ProxyCommand=nc %h %p|x",
		`ssh -i my\ key`:                   "ssh|-i|my key",
		`  ssh   -v  `:                     "ssh|-v",
		`ssh "a\"b"`:                       `ssh|a"b`,
		`ssh $HOME`:                        "ssh|$HOME",
	} {
		got, err := SplitCommand(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("SplitCommand(%q) = %q, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{`ssh 'x`, `ssh "x`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted an unclosed quote", bad)
		}
	}
}

func TestCheckHost(t *testing.T) {
	for _, h := range []string{"box", "me@box.example", "10.0.0.1", "[::1]"} {
		if err := CheckHost(h); err != nil {
			t.Errorf("%q refused: %v", h, err)
		}
	}
	for _, h := range []string{"", "-oProxyCommand=x", "a b", "a\nb"} {
		if err := CheckHost(h); err == nil {
			t.Errorf("%q accepted", h)
		}
	}
}

// paneteam's connection never forwards the agent or X11, whatever the
// person's ssh config says, and nothing typed reaches ssh's escapes.
func TestArgvForwardsNothing(t *testing.T) {
	c, err := NewClient(func(string) string { return "ssh -F /cfg" }, "box", "/run/p", "crew")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.Argv("true", true), " ")
	for _, want := range []string{"ssh -F /cfg -a -x ", "ForwardAgent=no", "ForwardX11=no", "ClearAllForwardings=yes", "BatchMode=yes", "EscapeChar=none", "-tt", "-- box exec sh -c"} {
		if !strings.Contains(got, want) {
			t.Errorf("the pane's ssh lacks %q: %s", want, got)
		}
	}
}

// A session's ProxyCommand=false wins only if no proxy of the person's
// comes first (ssh keeps an option's first value): the sessions leave
// the person's -J, ProxyJump and ProxyCommand out, and keep the rest.
func TestSessionsDropThePersonsProxy(t *testing.T) {
	for in, want := range map[string]string{
		"ssh -F /cfg":                                    "ssh -F /cfg",
		"ssh -J jump -F /cfg":                            "ssh -F /cfg",
		"ssh -Jjump -v":                                  "ssh -v",
		"ssh -vJ jump -p 22":                             "ssh -v -p 22",
		"ssh -o ProxyJump=jump -o User=me":               "ssh -o User=me",
		"ssh -oProxyCommand=nc\\ %h\\ %p -i key":         "ssh -i key",
		"ssh -o 'proxycommand nc %h %p' -4":              "ssh -4",
		"ssh -o ProxyCommandX=1":                         "ssh -o ProxyCommandX=1",
		"ssh -l me -o ControlPersist=1 -vvo ProxyJump=j": "ssh -l me -o ControlPersist=1 -vv",
	} {
		c, err := NewClient(func(string) string { return in }, "box", "/run/p", "crew")
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(c.Argv("true", false), " ")
		if !strings.HasPrefix(got, want+" -a -x ") || strings.Count(got, "Proxy") != 1+strings.Count(want, "Proxy") {
			t.Errorf("PANETEAM_SSH=%q: the session runs %s; want it to start %q and name no proxy but ProxyCommand=false", in, got, want)
		}
	}
}
