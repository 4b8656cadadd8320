package tmuxconf

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// tpmScript is TPM as Debian's tmux-plugin-manager installs it.
const tpmScript = "/usr/share/tmux-plugin-manager/tpm"

func requireTPM(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(tpmScript); err != nil {
		if testutil.RequireAll() {
			t.Fatalf("%s is required (PANETEAM_REQUIRE_ALL=1): install tmux-plugin-manager", tpmScript)
		}
		t.Skipf("SKIPPED: %s is missing; install tmux-plugin-manager to run this test", tpmScript)
	}
}

// tpmHome makes home what a TPM user's HOME holds: ~/.tmux.conf listing
// the plugin (TPM reads its plugin list from that file) with extra lines
// before TPM's run line, and the plugin where prefix + I would have
// cloned it (the repository itself). It returns the configuration's path.
func tpmHome(t *testing.T, home, extra string) string {
	t.Helper()
	plugins := filepath.Join(home, ".tmux", "plugins")
	if err := os.MkdirAll(plugins, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testutil.ModuleRoot(), filepath.Join(plugins, "paneteam")); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(home, ".tmux.conf")
	text := "set -g @plugin 'paneteam/paneteam'\n" + extra + "run '" + tpmScript + "'\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return conf
}

// TestTPMPlugin loads the plugin through the real TPM from a test HOME's
// ~/.tmux.conf, with one key moved and one switched off, and presses the
// keys as TestBindingsDeliverExactlyWhatWasTyped does for
// tmux.conf.example: every binding of the list is there (under its
// option), prefix + I and U stay TPM's, what is typed arrives exactly,
// and #{paneteam_status} in status-right and status-left became the team
// status.
func TestTPMPlugin(t *testing.T) {
	requireTPM(t)
	h := startWith(t, func(h *harness) string {
		return tpmHome(t, h.work, `set -g @paneteam-send 'O'
set -g @paneteam-kill 'off'
set -g status-interval 1
set -g status-right-length 200
set -g status-right '[#{paneteam_status}] %H:%M'
set -g status-left '#{paneteam_status}|#{paneteam_status}'
`)
	})

	for _, k := range tpmKeys[:2] {
		if out, _ := h.innerServer.Run(context.Background(), "list-keys", "-T", "prefix", k); !strings.Contains(out, "tmux-plugin-manager") {
			t.Errorf("prefix + %s is %q, want TPM's", k, out)
		}
	}
	for _, b := range bindings {
		key := b.Key
		switch b.Name {
		case "send":
			key = "O"
		case "kill":
			if out, _ := h.innerServer.Run(context.Background(), "list-keys", "-T", "prefix", key); strings.Contains(out, "paneteam") {
				t.Errorf("@paneteam-kill is off, but prefix + %s is %q", key, out)
			}
			continue
		}
		out, err := h.innerServer.Run(context.Background(), "list-keys", "-T", "prefix", key)
		// tmux lists flags in its own order, values quoted.
		got := strings.ReplaceAll(strings.TrimSpace(out), `"`, "")
		ok := err == nil && strings.Contains(got, " display-popup ") &&
			strings.HasSuffix(got, " "+h.bin+" "+strings.Join(b.Args, " "))
		for i, f := range b.Popup {
			if strings.HasPrefix(f, "-") && i+1 < len(b.Popup) && !strings.HasPrefix(b.Popup[i+1], "-") {
				f += " " + b.Popup[i+1]
			}
			ok = ok && strings.Contains(got, " "+f+" ")
		}
		if !ok {
			t.Errorf("prefix + %s (%s) is %q (%v), want display-popup %s %s %s", key, b.Name, out, err,
				strings.Join(b.Popup, " "), h.bin, strings.Join(b.Args, " "))
		}
	}
	if out, _ := h.innerServer.Run(context.Background(), "list-keys", "-T", "prefix", "M"); strings.Contains(out, "paneteam") {
		t.Errorf("@paneteam-send moved the key to O, but prefix + M still is %q", out)
	}

	// The moved key sends, byte for byte.
	h.spawnAlice()
	for _, text := range texts[:5] {
		h.press("O")
		h.answer("to:", "alice")
		h.answer("message:", text)
		h.waitInbox("alice", text)
		h.waitGone("message:")
		h.checkMarkers()
	}

	// Hide and show, then the inbox popup.
	h.press(keyOf("hide"))
	h.answer("hide teammate:", "alice")
	h.waitHidden("alice", true)
	h.waitGone("hide teammate:")
	h.press(keyOf("show"))
	h.answer("show teammate:", "alice")
	h.waitHidden("alice", false)
	h.waitGone("show teammate:")

	text := "from alice: $(touch x1) #{pane_id}"
	run(t, h.work, testutil.Env("PANETEAM_ROOT="+h.root), testutil.Binary(t), "send", "--team", "demo", "--to", "team-lead", "--from", "alice", text)
	h.press(keyOf("inbox"))
	h.waitScreen("the message in the inbox popup", func(s string) bool { return strings.Contains(s, text) })
	h.keys("C-c")
	h.waitGone(text)

	h.waitScreen("the team status where #{paneteam_status} was", func(s string) bool {
		return strings.Contains(s, "[demo ▶")
	})
	segment := "#(" + h.bin + " status --format tmux --panes '" + tmux.StatusPanesFormat + "')"
	if out := strings.TrimSpace(h.inner("show-option", "-gv", "status-right")); out != "["+segment+"] %H:%M" {
		t.Errorf("status-right is %q, want #{paneteam_status} replaced by the status command", out)
	}
	if out := strings.TrimSpace(h.inner("show-option", "-gv", "status-left")); out != segment+"|"+segment {
		t.Errorf("status-left is %q, want both #{paneteam_status} replaced", out)
	}
	h.checkMarkers()
}

// TestTPMPluginSaysWhatToInstall: with no paneteam on tmux's PATH, the
// plugin binds nothing and says in the message line what to install.
func TestTPMPluginSaysWhatToInstall(t *testing.T) {
	requireTPM(t)
	tmuxBin := testutil.RequireTool(t, "tmux")
	dir := testutil.ShortTempDir(t)
	home := filepath.Join(dir, "h")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Dir(tmuxBin) + ":/usr/bin:/bin"
	for _, d := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(d, "paneteam")); err == nil {
			t.Skipf("SKIPPED: paneteam is installed in %s, so tmux finds it: this test needs a PATH without it", d)
		}
	}
	conf := tpmHome(t, home, "")
	inner, outer := filepath.Join(dir, "i"), filepath.Join(dir, "o")
	// A person starting tmux: the client that starts the server is
	// attached once the configuration (and TPM) ran.
	cmd := exec.Command(tmuxBin, "-S", outer, "-f", "/dev/null", "new-session", "-d", "-s", "o", "-x", "200", "-y", "50",
		"env", "HOME="+home, "PATH="+path, tmuxBin, "-u", "-S", inner, "-f", conf, "new-session", "-s", "lead")
	cmd.Env = testutil.Env("HOME="+home, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("start tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		exec.Command(tmuxBin, "-S", inner, "kill-server").Run()
		exec.Command(tmuxBin, "-S", outer, "kill-server").Run()
	})
	want := "paneteam is not installed"
	var screen string
	testutil.Eventually(t, 15*time.Second, "the plugin's message in tmux's message line", func() bool {
		screen, _ = tmux.Server{Socket: outer}.Run(context.Background(), "capture-pane", "-p", "-t", "o")
		return strings.Contains(screen, want)
	})
	if !strings.Contains(screen, "go install github.com/paneteam/paneteam/cmd/paneteam") {
		t.Errorf("the message does not say what to install:\n%s", screen)
	}
	srv := tmux.Server{Socket: inner}
	if out, _ := srv.Run(context.Background(), "list-keys", "-T", "prefix", keyOf("spawn-claude")); strings.Contains(out, "display-popup") {
		t.Errorf("with no paneteam, prefix + %s is still bound: %q", keyOf("spawn-claude"), out)
	}

	// @paneteam-bin names it instead (prefix + I runs the plugin again).
	bin := testutil.Binary(t)
	for _, args := range [][]string{{"set-option", "-g", "@paneteam-bin", bin},
		{"run-shell", filepath.Join(home, ".tmux", "plugins", "paneteam", "paneteam.tmux")}} {
		if out, err := srv.Run(context.Background(), args...); err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
	}
	out, _ := srv.Run(context.Background(), "list-keys", "-T", "prefix", keyOf("spawn-claude"))
	if !strings.Contains(out, " "+bin+" prompt spawn --claude") {
		t.Errorf("with @paneteam-bin set, prefix + %s is %q, want a popup running %s", keyOf("spawn-claude"), out, bin)
	}
}
