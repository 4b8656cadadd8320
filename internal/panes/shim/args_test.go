package shim

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseClaudeCalls(t *testing.T) {
	tests := []struct {
		argv   string // words separated by "  " (two spaces)
		socket string
		name   string
		cmd    string
		flags  map[byte]string
		args   []string
	}{
		{argv: "-S  /t/s  split-window  -d  -t  %0  -h  -l  70%  -P  -F  #{pane_id}  --  cat",
			socket: "/t/s", cmd: "split-window",
			flags: map[byte]string{'d': "", 't': "%0", 'h': "", 'l': "70%", 'P': "", 'F': "#{pane_id}"}, args: []string{"cat"}},
		{argv: "-L  claude-swarm-42  new-session  -d  -s  claude-swarm  -n  swarm-view  -P  -F  #{pane_id}  --  cat",
			name: "claude-swarm-42", cmd: "new-session",
			flags: map[byte]string{'d': "", 's': "claude-swarm", 'n': "swarm-view", 'P': "", 'F': "#{pane_id}"}, args: []string{"cat"}},
		{argv: "-S  /t/s  respawn-pane  -k  -t  %1  --  cd /p && env A=1 claude --agent-id dora@panes",
			socket: "/t/s", cmd: "respawn-pane", flags: map[byte]string{'k': "", 't': "%1"},
			args: []string{"cd /p && env A=1 claude --agent-id dora@panes"}},
		{argv: "show  -gv  focus-events", cmd: "show-options", flags: map[byte]string{'g': "", 'v': ""}, args: []string{"focus-events"}},
		{argv: "display-message  -p  -t  %0  #{session_name}:#{window_id}.#{pane_id}", cmd: "display-message",
			flags: map[byte]string{'p': "", 't': "%0"}, args: []string{"#{session_name}:#{window_id}.#{pane_id}"}},
		{argv: "-S  /t/s  set-option  -p  -t  %1  window-style  bg=default,fg=blue", socket: "/t/s", cmd: "set-option",
			flags: map[byte]string{'p': "", 't': "%1"}, args: []string{"window-style", "bg=default,fg=blue"}},
		// Combined flags and a value glued to its flag mean what they mean to tmux.
		{argv: "-S/t/s  splitw  -dPt%0  -hF#{pane_id}  cat", socket: "/t/s", cmd: "split-window",
			flags: map[byte]string{'d': "", 'P': "", 't': "%0", 'h': "", 'F': "#{pane_id}"}, args: []string{"cat"}},
		{argv: "-S  /t/s  kill-pane  -t  %3", socket: "/t/s", cmd: "kill-pane", flags: map[byte]string{'t': "%3"}},
		// An argument that looks like a flag after the command's own ends them.
		{argv: "-S  /t/s  select-layout  -t  @0  main-vertical", socket: "/t/s", cmd: "select-layout",
			flags: map[byte]string{'t': "@0"}, args: []string{"main-vertical"}},
	}
	for _, tc := range tests {
		t.Run(tc.argv, func(t *testing.T) {
			c, err := Parse(strings.Split(tc.argv, "  "))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if c.Socket != tc.socket || c.Name != tc.name || c.Cmd != tc.cmd {
				t.Errorf("socket %q name %q cmd %q, want %q %q %q", c.Socket, c.Name, c.Cmd, tc.socket, tc.name, tc.cmd)
			}
			if !reflect.DeepEqual(c.Flags, tc.flags) {
				t.Errorf("flags %q, want %q", c.Flags, tc.flags)
			}
			if len(c.Args) != 0 || len(tc.args) != 0 {
				if !reflect.DeepEqual(c.Args, tc.args) {
					t.Errorf("args %q, want %q", c.Args, tc.args)
				}
			}
			if why := check(c); why != "" && !strings.HasPrefix(tc.argv, "show") {
				t.Errorf("a call Claude Code makes is refused: %s", why)
			}
		})
	}
}

func TestParseGlobals(t *testing.T) {
	c, err := Parse([]string{"-u", "-f", "/dev/null", "-L", "x", "list-panes"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Globals, []string{"-u", "-f", "/dev/null", "-L", "x"}) || c.Name != "x" {
		t.Errorf("globals %q name %q", c.Globals, c.Name)
	}
	c, err = Parse([]string{"-V"})
	if err != nil || !c.Version || c.Cmd != "" {
		t.Errorf("-V: %+v %v", c, err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, argv := range [][]string{
		{"-S"},                             // no socket path
		{"-X", "list-panes"},               // no such global flag
		{"-S", "/s", "split-window", "-Q"}, // no such flag of split-window
		{"-S", "/s", "split-window", "-t"}, // -t without its value
		{"-S", "/s", "frobnicate"},         // no such command for the shim
		{"-S", "/s", "kill-pane", "-t", "%1", ";", "kill-server"}, // two commands
	} {
		if c, err := Parse(argv); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", argv, c)
		}
	}
}

func TestCheckRefusesDrift(t *testing.T) {
	for _, argv := range [][]string{
		{"-S", "/s", "split-window", "-d", "-t", "%0", "-h", "-P", "-F", "#{pane_id}", "--", "bash"}, // not cat
		{"-S", "/s", "split-window", "-b", "-t", "%0", "--", "cat"},                                  // a flag Claude does not use
		{"-S", "/s", "respawn-pane", "-k", "-t", "%1", "--", "a", "b"},                               // two words
		{"-S", "/s", "respawn-pane", "-k", "-t", "%1"},                                               // no command
		{"-S", "/s", "set-option", "-p", "-t", "%1", "remain-on-exit"},                               // no value
		{"-S", "/s", "new-window", "-d"},
	} {
		c, err := Parse(argv)
		if err != nil {
			continue // refused by the parser already
		}
		if why := check(c); why == "" {
			t.Errorf("check(%q) accepted a call Claude Code does not make", argv)
		}
	}
}

func TestCallString(t *testing.T) {
	c, _ := Parse([]string{"-S", "/t/s", "select-pane", "-t", "%1", "-T", "it's me"})
	if got, want := c.String(), `tmux -S /t/s select-pane -t %1 -T 'it'\''s me'`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}

func TestShellWords(t *testing.T) {
	line := `cd /run/proj && env A=1 B='' C=a\ b D="x \"y\" \$z" /bin/claude.exe --agent-id dora@panes --agent-name 'do ra'`
	want := []string{"cd", "/run/proj", "&&", "env", "A=1", "B=", "C=a b", `D=x "y" $z`, "/bin/claude.exe", "--agent-id", "dora@panes", "--agent-name", "do ra"}
	if got := shellWords(line); !reflect.DeepEqual(got, want) {
		t.Errorf("shellWords:\n got %q\nwant %q", got, want)
	}
	if got := teammateOf(shellWords(line)); got != "dora@panes" {
		t.Errorf("teammateOf = %q", got)
	}
	if got := teammateOf([]string{"claude", "--agent-id=eve@t"}); got != "eve@t" {
		t.Errorf("teammateOf(--agent-id=) = %q", got)
	}
	if got := teammateOf([]string{"claude", "--agent-id"}); got != "" {
		t.Errorf("teammateOf without a value = %q", got)
	}
}

// FuzzCommandLine: any command line is parsed without a panic, and a call
// the parser accepts, shown as a shell line (as messages and the log show
// it) and read back, is the same call.
func FuzzCommandLine(f *testing.F) {
	f.Add("-S\x00/t/s\x00split-window\x00-d\x00-t\x00%0\x00-h\x00-l\x0070%\x00-P\x00-F\x00#{pane_id}\x00--\x00cat")
	f.Add("-L\x00claude-swarm-1\x00has-session\x00-t\x00claude-swarm")
	f.Add("show\x00-gv\x00focus-events")
	f.Add("-S/x\x00respawnp\x00-kt%1\x00--\x00cd 'a b' && env X=\"1\" c --agent-id a@b")
	f.Fuzz(func(t *testing.T, joined string) {
		argv := strings.Split(joined, "\x00")
		c, err := Parse(argv)
		if err != nil {
			return
		}
		_ = check(c)
		_ = c.String()
		again, err := Parse(shellWords(c.String())[1:])
		if err != nil || again.Cmd != c.Cmd || again.Socket != c.Socket || again.Name != c.Name || !reflect.DeepEqual(again.Args, c.Args) {
			t.Fatalf("re-parse of %q differs: %+v / %v", argv, again, err)
		}
		if c.Cmd == "respawn-pane" && len(c.Args) > 0 {
			_ = teammateOf(shellWords(c.Args[len(c.Args)-1]))
		}
	})
}

func FuzzShellWords(f *testing.F) {
	f.Add(`cd /p && env A='x y' claude --agent-id a@b`)
	f.Add(`"unterminated \"`)
	f.Add(`'`)
	f.Fuzz(func(t *testing.T, line string) {
		words := shellWords(line)
		// Words quoted back and read again are the same words.
		var b strings.Builder
		for i, w := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(shellQuote(w))
		}
		if again := shellWords(b.String()); !reflect.DeepEqual(again, words) && len(words) > 0 {
			t.Fatalf("shellWords(%q) = %q; quoted back and split: %q", line, words, again)
		}
	})
}
