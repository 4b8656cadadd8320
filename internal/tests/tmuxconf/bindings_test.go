package tmuxconf

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// binding is one key paneteam offers: tmux.conf.example binds it for
// people without TPM, paneteam.tmux (the TPM plugin) binds it under the
// option @paneteam-<Name>. Both files are checked against this list.
type binding struct {
	Name  string   // the plugin's option: @paneteam-<Name>
	Key   string   // the default key, after the prefix
	Popup []string // display-popup's flags
	Args  []string // paneteam's arguments
}

var bindings = []binding{
	{"spawn-claude", "T", []string{"-E", "-w", "80%"}, []string{"prompt", "spawn", "--claude"}},
	{"spawn-shell", "C-t", []string{"-E", "-w", "80%"}, []string{"prompt", "spawn", "--", "bash", "-l"}},
	{"send", "M", []string{"-E", "-w", "80%"}, []string{"prompt", "send"}},
	{"inbox", "N", []string{"-EE", "-w", "80%", "-h", "60%"}, []string{"inbox-watch", "--mark-read"}},
	{"hide", "H", []string{"-E", "-w", "80%"}, []string{"prompt", "hide"}},
	{"show", "S", []string{"-E", "-w", "80%"}, []string{"prompt", "show"}},
	{"kill", "X", []string{"-E", "-w", "80%"}, []string{"prompt", "kill-pane"}},
	{"requests", "P", []string{"-E", "-w", "90%", "-h", "80%"}, []string{"dashboard", "--requests"}},
	{"dashboard", "W", []string{"-E", "-w", "95%", "-h", "90%"}, []string{"dashboard"}},
	{"attach", "A", []string{"-EE", "-w", "90%", "-h", "90%"}, []string{"attach"}},
}

// keyOf is the default key of the binding called name.
func keyOf(name string) string {
	for _, b := range bindings {
		if b.Name == name {
			return b.Key
		}
	}
	panic("no binding " + name)
}

// tpmKeys are the keys TPM itself binds (install, update, clean).
var tpmKeys = []string{"I", "U", "M-u"}

func (b binding) String() string {
	return b.Name + " " + b.Key + " " + strings.Join(b.Popup, " ") + " -- " + strings.Join(b.Args, " ")
}

// TestExampleAndPluginBindTheList: tmux.conf.example and paneteam.tmux
// bind exactly the keys of the list, to the same popups, and no default
// takes a key TPM binds.
func TestExampleAndPluginBindTheList(t *testing.T) {
	var want []string
	for _, b := range bindings {
		want = append(want, b.String())
		if slices.Contains(tpmKeys, b.Key) {
			t.Errorf("%s's default key %s is TPM's", b.Name, b.Key)
		}
	}

	// tmux.conf.example: bind-key KEY display-popup FLAGS... paneteam ARGS...
	var example []string
	for _, line := range lines(t, "tmux.conf.example") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "bind-key" {
			continue
		}
		i := slices.Index(f, "paneteam")
		if len(f) < 4 || f[2] != "display-popup" || i < 0 {
			t.Errorf("tmux.conf.example: %q is not bind-key KEY display-popup ... paneteam ...", line)
			continue
		}
		b := binding{Name: nameOfArgs(f[i+1:]), Key: f[1], Popup: f[3:i], Args: f[i+1:]}
		example = append(example, b.String())
	}
	if !slices.Equal(example, want) {
		t.Errorf("tmux.conf.example binds\n  %s\nthe list says\n  %s", strings.Join(example, "\n  "), strings.Join(want, "\n  "))
	}

	// paneteam.tmux: binding NAME KEY "FLAGS" ARGS...
	var plugin []string
	for _, line := range lines(t, "paneteam.tmux") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "binding" {
			continue
		}
		// The flags are one quoted word in the script.
		open, close := strings.Index(line, `"`), strings.LastIndex(line, `"`)
		if open < 0 || close <= open || len(f) < 4 {
			t.Errorf("paneteam.tmux: %q is not binding NAME KEY \"FLAGS\" ARGS...", line)
			continue
		}
		b := binding{Name: f[1], Key: f[2], Popup: strings.Fields(line[open+1 : close]), Args: strings.Fields(line[close+1:])}
		plugin = append(plugin, b.String())
	}
	if !slices.Equal(plugin, want) {
		t.Errorf("paneteam.tmux binds\n  %s\nthe list says\n  %s", strings.Join(plugin, "\n  "), strings.Join(want, "\n  "))
	}

	// The README names every option.
	readme := strings.Join(lines(t, "README.md"), "\n")
	for _, b := range bindings {
		if !strings.Contains(readme, "`"+b.Name+"`") {
			t.Errorf("README does not name the plugin option %s", b.Name)
		}
	}

	// TPM runs the plugin as a program.
	path := filepath.Join(testutil.ModuleRoot(), "paneteam.tmux")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&0o111 == 0 {
		t.Errorf("paneteam.tmux is not executable (mode %v): TPM runs it as a program", st.Mode())
	}
	if l := lines(t, "paneteam.tmux"); len(l) == 0 || !strings.HasPrefix(l[0], "#!") {
		t.Errorf("paneteam.tmux has no #! line: TPM runs it as a program")
	}
}

// nameOfArgs finds the list's name for a binding of the example by its
// paneteam arguments.
func nameOfArgs(args []string) string {
	for _, b := range bindings {
		if slices.Equal(b.Args, args) {
			return b.Name
		}
	}
	return "?"
}

func lines(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(testutil.ModuleRoot(), file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
