package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/lockfile"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/kittytest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// nativeTerm is a terminal paneteam's own teammates open in, as the test
// sees it: the lead's variables there, and where each pane is.
type nativeTerm struct {
	vars map[string]string
	// binDir goes first on PATH (a fake CLI); "" for a real program.
	binDir string
	// panes maps each open pane's handle to where it is.
	panes func(t *testing.T) map[string]termPane
	lead  string
}

// termPane is a pane's place: split from which pane and which way
// ("right", "below"), or, where the terminal tells sizes, its size.
type termPane struct {
	from, dir  string
	cols, rows int
}

func startKitty(t *testing.T) nativeTerm {
	k := kittytest.Start(t, kittytest.Options{})
	vars := map[string]string{}
	for _, kv := range k.Env {
		key, v, _ := strings.Cut(kv, "=")
		vars[key] = v
	}
	return nativeTerm{vars: vars, lead: k.Window, panes: func(t *testing.T) map[string]termPane {
		out := map[string]termPane{}
		for _, o := range k.List(t) {
			for _, tb := range o.Tabs {
				for _, w := range tb.Windows {
					out[strconv.Itoa(w.ID)] = termPane{cols: w.Columns, rows: w.Lines}
				}
			}
		}
		return out
	}}
}

func startFake(t *testing.T, kind string) nativeTerm {
	tm := nativetest.Start(t, kind, []string{"sleep", "600"}, nativetest.Options{})
	vars := map[string]string{}
	get := tm.Getenv(tm.First)
	for _, k := range []string{"WEZTERM_PANE", "WEZTERM_UNIX_SOCKET", "TERM_PROGRAM", "ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID", "ZELLIJ_SOCKET_DIR"} {
		if v := get(k); v != "" {
			vars[k] = v
		}
	}
	for _, kv := range tm.Env {
		if v, ok := strings.CutPrefix(kv, "ZELLIJ_SOCKET_DIR="); ok {
			vars["ZELLIJ_SOCKET_DIR"] = v
		}
	}
	return nativeTerm{vars: vars, binDir: tm.BinDir, lead: nativetest.ID(tm.First), panes: func(t *testing.T) map[string]termPane {
		ps, err := tm.Panes()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]termPane{}
		for _, p := range ps {
			if p.Exited {
				continue
			}
			dir := map[string]string{"right": "right", "bottom": "below", "down": "below"}[p.Direction]
			out[nativetest.ID(p.ID)] = termPane{from: nativetest.ID(p.SplitFrom), dir: dir, cols: p.Cols, rows: p.Rows}
		}
		return out
	}}
}

// spawn-pane puts two plain-command teammates in the terminal's own panes
// (the first by --backend, the second by the auto choice), placed
// main-vertical; status sees them alive; kill-pane ends one, process and
// pane; cleanup leaves nothing.
func TestSpawnPaneNativeTerminals(t *testing.T) {
	for _, name := range []string{team.BackendKitty, team.BackendWezTerm, team.BackendZellij} {
		t.Run(name, func(t *testing.T) {
			var term nativeTerm
			if name == team.BackendKitty {
				term = startKitty(t)
			} else {
				term = startFake(t, name)
			}
			path := os.Getenv("PATH")
			if term.binDir != "" {
				path = term.binDir + string(os.PathListSeparator) + path
			}
			// backends find the terminal's CLI on the process PATH.
			t.Setenv("PATH", path)
			root, vars := ptRootVars(t)
			vars["PATH"] = path
			for k, v := range term.vars {
				vars[k] = v
			}
			run := func(args ...string) string {
				t.Helper()
				out, errs, code := iterm2Run(t, vars, args...)
				if code != 0 {
					t.Fatalf("paneteam %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
				}
				return out
			}
			run("team-create", "alpha")
			pids := t.TempDir()
			spawn := func(who string, args ...string) (pane string, pid int) {
				t.Helper()
				pidFile := filepath.Join(pids, who)
				a := append([]string{"spawn-pane", "--team", "alpha", "--name", who}, args...)
				run(append(a, "--", "/bin/sh", "-c", `echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec sleep 600`, pidFile)...)
				_, cfg, err := team.Open(root, "alpha")
				if err != nil {
					t.Fatal(err)
				}
				m := cfg.Member(who)
				if m == nil || m.BackendType != name || m.Paneteam == nil || m.Paneteam.Terminal == nil {
					t.Fatalf("member %s: %+v; want a %s member with its terminal recorded", who, m, name)
				}
				var b []byte
				testutil.Eventually(t, 10*time.Second, who+"'s command runs", func() bool {
					b, err = os.ReadFile(pidFile)
					return err == nil
				})
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return m.TmuxPaneID, pid
			}
			alice, alicePID := spawn("alice", "--backend", name)
			bob, bobPID := spawn("bob")

			ps := term.panes(t)
			a, b, lead := ps[alice], ps[bob], ps[term.lead]
			if _, ok := ps[alice]; !ok {
				t.Fatalf("alice's pane %s is not in %s: %+v", alice, name, ps)
			}
			if _, ok := ps[bob]; !ok {
				t.Fatalf("bob's pane %s is not in %s: %+v", bob, name, ps)
			}
			// main-vertical: alice beside the lead, taking most of the
			// width; bob below alice.
			if name == team.BackendKitty {
				if a.cols <= lead.cols || b.cols != a.cols || a.rows >= lead.rows || b.rows >= lead.rows {
					t.Fatalf("not main-vertical: lead %+v alice %+v bob %+v", lead, a, b)
				}
			} else if a.from != term.lead || a.dir != "right" || b.from != alice || b.dir != "below" {
				t.Fatalf("not main-vertical: alice %+v (want right of lead %s), bob %+v (want below alice %s)", a, term.lead, b, alice)
			}

			status := func() map[string]string {
				var teams []struct {
					Members []struct {
						Name string `json:"name"`
						Pane string `json:"pane"`
					} `json:"members"`
				}
				if err := json.Unmarshal([]byte(run("status", "--team", "alpha", "--json")), &teams); err != nil || len(teams) != 1 {
					t.Fatalf("status --json: %v", err)
				}
				out := map[string]string{}
				for _, m := range teams[0].Members {
					out[m.Name] = m.Pane
				}
				return out
			}
			if st := status(); st["alice"] != "alive" || st["bob"] != "alive" {
				t.Fatalf("status: %v; want alice and bob alive", st)
			}

			// config.json is every member's to write (a teammate on
			// another host included): bob's row pointed at alice's pane
			// must not let kill-pane of bob close alice.
			tm := team.Team{Root: root, Name: "alpha"}
			forge := func(pane string) {
				t.Helper()
				if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
					c.Member("bob").TmuxPaneID = pane
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			forge(alice)
			if out, errs, code := iterm2Run(t, vars, "kill-pane", "--team", "alpha", "--name", "bob"); code == 0 || !strings.Contains(errs, "not one paneteam recorded") {
				t.Fatalf("kill-pane of bob with alice's pane forged in: exit %d\n%s%s", code, out, errs)
			}
			if _, ok := term.panes(t)[alice]; !ok || syscall.Kill(alicePID, 0) != nil {
				t.Fatal("a forged row made kill-pane close alice's pane")
			}
			forge(bob)
			if name == team.BackendZellij {
				forgedZellijDir(t, vars, tm, "bob")
			}

			run("kill-pane", "--team", "alpha", "--name", "alice")
			testutil.Eventually(t, 5*time.Second, "alice's process ends", func() bool { return syscall.Kill(alicePID, 0) != nil })
			testutil.Eventually(t, 5*time.Second, "alice's pane closes", func() bool {
				_, ok := term.panes(t)[alice]
				return !ok
			})
			if _, ok := term.panes(t)[bob]; !ok || syscall.Kill(bobPID, 0) != nil {
				t.Fatal("kill-pane of alice closed bob's pane too")
			}
			if _, ok := term.panes(t)[term.lead]; !ok {
				t.Fatal("kill-pane closed the lead's pane")
			}

			run("cleanup", "--team", "alpha", "--force")
			testutil.Eventually(t, 5*time.Second, "bob's process ends", func() bool { return syscall.Kill(bobPID, 0) != nil })
			testutil.Eventually(t, 5*time.Second, "only the lead's pane is left", func() bool {
				ps := term.panes(t)
				_, ok := ps[term.lead]
				return ok && len(ps) == 1
			})
		})
	}
}

// A teammate whose command exits by itself closes its pane; 'cleanup
// --orphans' then prunes paneteam's record of that pane (and 'status'
// reports the member gone, not an error), and leaves, unreported, the
// records of a terminal that does not answer. All of it under cron's
// PATH, which has no WezTerm.
func TestNativeRecordsGoWithTheirPanes(t *testing.T) {
	term := startFake(t, team.BackendWezTerm)
	path := term.binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	t.Setenv("PATH", path)
	root, vars := ptRootVars(t)
	state := t.TempDir()
	vars["PATH"], vars["PANETEAM_STATE_DIR"] = path, state
	for k, v := range term.vars {
		vars[k] = v
	}
	run := func(args ...string) string {
		t.Helper()
		out, errs, code := iterm2Run(t, vars, args...)
		if code != 0 {
			t.Fatalf("paneteam %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
		return out
	}
	want := func(when string, agents ...string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(state, "panes", "*", "pane-*"))
		var got []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			agent, _, _ := strings.Cut(string(b), "\n")
			got = append(got, agent)
		}
		sort.Strings(got)
		if !slices.Equal(got, agents) {
			t.Fatalf("%s: records of %v; want %v", when, got, agents)
		}
	}
	run("team-create", "alpha")
	// bob's command ends by itself once the test writes to its fifo.
	fifo := filepath.Join(t.TempDir(), "bob")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, m := range [][]string{{"alice", "sleep", "600"}, {"bob", "cat", fifo}} {
		run(append([]string{"spawn-pane", "--team", "alpha", "--name", m[0], "--backend", "wezterm", "--"}, m[1:]...)...)
	}
	want("after the spawns", "alice@alpha", "bob@alpha")
	if err := os.WriteFile(fifo, []byte("done\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cfg, err := team.Open(root, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	bob := cfg.Member("bob").TmuxPaneID
	testutil.Eventually(t, 10*time.Second, "bob's command ends and his pane closes", func() bool {
		_, ok := term.panes(t)[bob]
		return !ok
	})

	// A terminal that does not answer: WezTerm's mux socket is gone (and
	// the CLI must not start a mux server there).
	runtime := filepath.Join(t.TempDir(), "wezterm")
	t.Setenv("WEZTERM_FAKE_RUNTIME_DIR", runtime)
	gone := map[string]string{"WEZTERM_UNIX_SOCKET": filepath.Join(t.TempDir(), "gone", "sock"), "WEZTERM_PANE": "0"}
	quiet := filepath.Join(state, "panes", "wezterm-"+recordsKey(gone))
	if err := os.MkdirAll(quiet, 0o700); err != nil {
		t.Fatal(err)
	}
	addr, _ := json.Marshal(map[string]any{"terminal": "wezterm", "env": gone})
	old := time.Now().Add(-time.Hour)
	for name, b := range map[string][]byte{"address.json": addr, "pane-37": []byte("dan@alpha\n/x\n")} {
		if err := os.WriteFile(filepath.Join(quiet, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(quiet, name), old, old)
	}

	// Records are pruned only once older than the List; make them so
	// rather than wait.
	recs, _ := filepath.Glob(filepath.Join(state, "panes", "*", "pane-*"))
	for _, f := range recs {
		os.Chtimes(f, old, old)
	}
	// Cron runs cleanup with PATH=/usr/bin:/bin, which has no WezTerm:
	// paneteam reaches it by the program its spawn recorded.
	t.Setenv("PATH", "/usr/bin:/bin")
	vars["PATH"] = "/usr/bin:/bin"
	out := run("cleanup", "--orphans", "--dry-run")
	want("cleanup --orphans --dry-run", "alice@alpha", "bob@alpha", "dan@alpha")
	out = run("cleanup", "--orphans")
	want("cleanup --orphans after bob's command ended", "alice@alpha", "dan@alpha")
	if !strings.Contains(out, "removed record") || strings.Contains(out, quiet) {
		t.Fatalf("cleanup --orphans said:\n%s\nwant bob's record reported removed, nothing of the terminal that did not answer", out)
	}
	if _, err := os.Stat(runtime); err == nil {
		t.Fatalf("cleanup --orphans started a WezTerm mux server for a socket that did not answer (%s)", runtime)
	}

	var teams []struct {
		Members []struct {
			Name string `json:"name"`
			Pane string `json:"pane"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(run("status", "--team", "alpha", "--json")), &teams); err != nil || len(teams) != 1 {
		t.Fatalf("status --json: %v", err)
	}
	for _, m := range teams[0].Members {
		if w := map[string]string{"alice": "alive", "bob": "dead"}[m.Name]; w != "" && m.Pane != w {
			t.Errorf("status: %s's pane %q; want %q", m.Name, m.Pane, w)
		}
	}
	// kill-pane of bob, whose pane and record are gone, succeeds.
	run("kill-pane", "--team", "alpha", "--name", "bob")
	want("after kill-pane of bob", "alice@alpha", "dan@alpha")
}

// recordsKey is the part of a records folder's name that paneteam
// derives from the terminal's address: the first 16 hex digits of the
// SHA-256 of its sorted KEY=VALUE\x00 entries.
func recordsKey(addr map[string]string) string {
	keys := make([]string, 0, len(addr))
	for k := range addr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k + "=" + addr[k] + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// forgedZellijDir points member who's Zellij driver folder in config.json
// at a folder planted in the team's own, whose record names a process of
// the test's by pid and start time: kill-pane refuses, saying why, and
// the process is never signalled. The row is put back after.
func forgedZellijDir(t *testing.T, vars map[string]string, tm team.Team, who string) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	start, err := proc.StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	_, cfg, err := team.Open(tm.Root, tm.Name)
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.Member(who)
	planted := filepath.Join(tm.Dir(), "planted")
	rec, _ := json.Marshal(map[string]any{"pid": cmd.Process.Pid, "start": start})
	if err := os.MkdirAll(planted, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(planted, "zellij-pane-"+m.TmuxPaneID+".json"), rec, 0o600); err != nil {
		t.Fatal(err)
	}
	setDir := func(dir string) {
		t.Helper()
		if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
			c.Member(who).Paneteam.Terminal.Dir = dir
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	own := m.Paneteam.Terminal.Dir
	setDir(planted)
	out, errs, code := iterm2Run(t, vars, "kill-pane", "--team", tm.Name, "--name", who)
	if code == 0 || !strings.Contains(errs, planted) || !strings.Contains(errs, "leaving it alone") {
		t.Fatalf("kill-pane of %s with its Zellij folder forged in config.json: exit %d\n%s%s; want a refusal naming the folder", who, code, out, errs)
	}
	var ws syscall.WaitStatus
	if pid, _ := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil); pid != 0 {
		t.Fatalf("kill-pane with a forged Zellij folder signalled a process of the test's (%v)", ws)
	}
	setDir(own)
}
