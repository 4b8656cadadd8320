package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// bashCompletion is the bash-completion package's loader, which paneteam's
// bash completion needs (the README says so).
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// TestREADMECompletionLinesWork runs the README's completion lines for
// bash, zsh and fish in those shells, with the built paneteam on PATH
// and a scratch HOME, and asks each to complete "paneteam sta".
func TestREADMECompletionLinesWork(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	line := func(shell string) string {
		for _, l := range strings.Split(string(readme), "\n") {
			if strings.Contains(l, "paneteam completion "+shell) {
				cmd, _, _ := strings.Cut(l, " #")
				return strings.TrimSpace(cmd)
			}
		}
		t.Fatalf("README shows no completion line for %s", shell)
		return ""
	}
	bin := t.TempDir()
	if err := os.Symlink(testutil.Binary(t), filepath.Join(bin, "paneteam")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ shell, script string }{
		// bash: with bash-completion loaded (as Debian's bashrc does), the
		// function the line installs, called as bash would.
		{"bash", ". " + bashCompletion + "\n" + line("bash") + `
COMP_WORDS=(paneteam sta); COMP_CWORD=1; COMP_LINE="paneteam sta"; COMP_POINT=${#COMP_LINE}
$(complete -p paneteam | sed 's/.*-F \([^ ]*\).*/\1/') paneteam sta paneteam
printf '%s\n' "${COMPREPLY[@]}"`},
		// zsh: after compinit, the line registers _paneteam for paneteam.
		{"zsh", "autoload -U compinit && compinit -u\n" + line("zsh") + "\nprint -r -- ${_comps[paneteam]}\npaneteam sta --generate-shell-completion"},
		// fish: the file the line writes, asked by fish itself.
		{"fish", "mkdir -p ~/.config/fish/completions\n" + line("fish") + "\ncomplete -C 'paneteam sta'"},
	} {
		t.Run(tc.shell, func(t *testing.T) {
			sh := testutil.RequireTool(t, tc.shell)
			if tc.shell == "bash" {
				if _, err := os.Stat(bashCompletion); err != nil {
					if testutil.RequireAll() {
						t.Fatalf("%s is required (PANETEAM_REQUIRE_ALL=1): install bash-completion", bashCompletion)
					}
					t.Skipf("SKIPPED: %s is missing; install bash-completion to run this test", bashCompletion)
				}
			}
			home := t.TempDir()
			cmd := exec.Command(sh, "-c", tc.script)
			cmd.Env = testutil.Env("HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
				"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "ZDOTDIR="+home)
			cmd.Dir = home
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "status") {
				t.Errorf("%s completing 'paneteam sta' printed (err %v):\n%s\nwant status among the answers", tc.shell, err, out)
			}
			if tc.shell == "zsh" && !strings.Contains(string(out), "_paneteam") {
				t.Errorf("zsh: the README's line registered no _paneteam completion:\n%s", out)
			}
		})
	}
}
