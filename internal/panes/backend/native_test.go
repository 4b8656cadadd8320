package backend_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
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

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

// A census asks a terminal for its panes once, however many members are
// in it, and judges a pane the person closed by hand dead.
func TestCensusListsATerminalOnce(t *testing.T) {
	tm := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	lead := tm.Getenv(tm.First)
	env := backend.Env{
		Getenv: lead,
		LookPath: func(name string) (string, error) {
			if name == "wezterm" {
				return tm.Bin, nil
			}
			return "/usr/bin/" + name, nil
		},
	}
	tt := team.Team{Root: t.TempDir(), Name: "alpha"}
	cfg := &team.Config{Name: "alpha"}
	b, err := backend.Choose(env, cfg, team.BackendWezTerm)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob", "carol"} {
		m := team.Member{Name: name, AgentID: name + "@alpha", Cwd: os.TempDir()}
		p, err := b.Spawn(context.Background(), backend.Spec{Team: tt, Config: cfg, Member: m, Argv: []string{"sleep", "600"}, Layout: layout.Policy{}})
		if err != nil {
			t.Fatal(err)
		}
		m.TmuxPaneID, m.BackendType, m.Paneteam = p.ID, p.Backend, p.Meta
		cfg.Members = append(cfg.Members, m)
	}
	bob := cfg.Member("bob")
	id, _ := strconv.Atoi(bob.TmuxPaneID)
	if err := tm.Close(id); err != nil { // the person closes bob's pane
		t.Fatal(err)
	}

	lists := func() int {
		calls, err := tm.Calls()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range calls {
			if slices.Contains(c, "list") {
				n++
			}
		}
		return n
	}
	before := lists()
	census := backend.NewCensus(env)
	want := map[string]bool{"alice": true, "bob": false, "carol": true}
	for name, alive := range want {
		got, err := census.Alive(context.Background(), cfg, cfg.Member(name))
		if err != nil || got != alive {
			t.Errorf("%s alive: %v, %v; want %v", name, got, err, alive)
		}
	}
	if n := lists() - before; n != 1 {
		t.Errorf("the census listed WezTerm's panes %d times for three members; want once", n)
	}
}

// records are paneteam's records of the panes it opened, in the state
// folder: each pane record's member (its first line), by record file.
func records(t *testing.T, state string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(state, "panes", "*", "pane-*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		agent, _, _ := strings.Cut(string(b), "\n")
		out[f] = agent
	}
	return out
}

// members lists the members records name, sorted.
func members(recs map[string]string) []string {
	var out []string
	for _, a := range recs {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// A teammate whose command exits by itself, and a pane the person
// closes, leave no record behind once paneteam next lists the terminal:
// for status (a census) or for a further spawn. A record of a live pane
// stays, in another team's folder too (Zellij's driver lists only its
// team's panes), and so does a record written after the List was taken.
func TestGonePanesLeaveNoRecords(t *testing.T) {
	for _, kind := range []string{nativetest.WezTerm, nativetest.Zellij} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tm := nativetest.Start(t, kind, []string{"sleep", "600"}, nativetest.Options{})
			state := t.TempDir()
			lead := tm.Getenv(tm.First)
			env := backend.Env{
				Getenv: func(k string) string {
					if k == "PANETEAM_STATE_DIR" {
						return state
					}
					return lead(k)
				},
				LookPath: func(name string) (string, error) {
					if name == kind {
						return tm.Bin, nil
					}
					return exec.LookPath(name)
				},
			}
			root := t.TempDir()
			type crew struct {
				t   team.Team
				cfg *team.Config
			}
			alpha := crew{team.Team{Root: root, Name: "alpha"}, &team.Config{Name: "alpha"}}
			beta := crew{team.Team{Root: root, Name: "beta"}, &team.Config{Name: "beta"}}
			b, err := backend.Choose(env, alpha.cfg, kind)
			if err != nil {
				t.Fatal(err)
			}
			spawn := func(c crew, name string, argv ...string) *team.Member {
				t.Helper()
				m := team.Member{Name: name, AgentID: name + "@" + c.t.Name, Cwd: os.TempDir()}
				p, err := b.Spawn(context.Background(), backend.Spec{Team: c.t, Config: c.cfg, Member: m, Argv: argv})
				if err != nil {
					t.Fatal(err)
				}
				m.TmuxPaneID, m.BackendType, m.Paneteam = p.ID, p.Backend, p.Meta
				c.cfg.Members = append(c.cfg.Members, m)
				return c.cfg.Member(name)
			}
			status := func(c crew, name string, want bool) {
				t.Helper()
				alive, err := backend.NewCensus(env).Alive(context.Background(), c.cfg, c.cfg.Member(name))
				if err != nil || alive != want {
					t.Fatalf("%s alive: %v, %v; want %v", name, alive, err, want)
				}
			}
			check := func(when string, want ...string) {
				t.Helper()
				if got := members(records(t, state)); !slices.Equal(got, want) {
					t.Fatalf("%s: records of %v; want %v", when, got, want)
				}
			}
			gone := func(m *team.Member) {
				t.Helper()
				id, _ := strconv.Atoi(m.TmuxPaneID)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := tm.WaitGone(ctx, id); err != nil {
					t.Fatal(err)
				}
			}

			spawn(beta, "eve", "sleep", "600")
			spawn(alpha, "alice", "sleep", "600")
			// bob's command exits by itself once the test writes to its fifo.
			fifo := filepath.Join(t.TempDir(), "bob")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			bob := spawn(alpha, "bob", "cat", fifo)
			carol := spawn(alpha, "carol", "sleep", "600")
			check("after the spawns", "alice@alpha", "bob@alpha", "carol@alpha", "eve@beta")
			if err := os.WriteFile(fifo, []byte("done\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			gone(bob)

			// Records are pruned only once older than the List; make them
			// so rather than wait.
			backdate(t, state)
			status(alpha, "alice", true)
			check("status after bob's command ended", "alice@alpha", "carol@alpha", "eve@beta")

			// The person closes carol's pane; the next spawn prunes its record.
			id, _ := strconv.Atoi(carol.TmuxPaneID)
			p, err := tm.Pane(id)
			if err != nil {
				t.Fatal(err)
			}
			if err := tm.Close(id); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, 5*time.Second, "carol's program ends", func() bool { return syscall.Kill(p.PID, 0) != nil })
			backdate(t, state)
			spawn(alpha, "dave", "sleep", "600")
			check("a spawn after carol's pane was closed", "alice@alpha", "dave@alpha", "eve@beta")

			// A record younger than the List (its spawn was under way) is
			// left; once older, it goes.
			dir := filepath.Dir(firstKey(records(t, state)))
			late := filepath.Join(dir, "pane-"+hex.EncodeToString([]byte("9999")))
			if err := os.WriteFile(late, []byte("frank@alpha\n"+alpha.cfg.Member("alice").Paneteam.Terminal.Dir+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			status(alpha, "alice", true)
			check("status just after a record was written", "alice@alpha", "dave@alpha", "eve@beta", "frank@alpha")
			old := time.Now().Add(-time.Minute)
			if err := os.Chtimes(late, old, old); err != nil {
				t.Fatal(err)
			}
			status(alpha, "alice", true)
			check("status once that record is older than the List", "alice@alpha", "dave@alpha", "eve@beta")

			// Without its record, a pane the terminal still lists is not
			// paneteam's to close (a forged row, or another state folder).
			alice := alpha.cfg.Member("alice")
			rec := filepath.Join(dir, "pane-"+hex.EncodeToString([]byte(alice.TmuxPaneID)))
			saved, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(rec)
			if err := b.Kill(context.Background(), alpha.cfg, alice); err == nil || !strings.Contains(err.Error(), "not one paneteam recorded") {
				t.Fatalf("kill of alice without her record: %v; want a refusal", err)
			}
			if id, _ := strconv.Atoi(alice.TmuxPaneID); !paneOpen(tm, id) {
				t.Fatal("kill of alice without her record closed her pane")
			}
			if err := os.WriteFile(rec, saved, 0o600); err != nil {
				t.Fatal(err)
			}

			// Kill takes the last records (bob's and carol's panes, whose
			// records went, are gone: success), and the folder goes.
			for _, c := range []crew{alpha, beta} {
				for i := range c.cfg.Members {
					if err := b.Kill(context.Background(), c.cfg, &c.cfg.Members[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if left, _ := os.ReadDir(filepath.Join(state, "panes")); len(left) != 0 {
				t.Fatalf("records folders left after every pane was closed: %v", left)
			}
		})
	}
}

// backdate makes every record in the state folder a minute old, older
// than any List the test asks for next.
func backdate(t *testing.T, state string) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	for f := range records(t, state) {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

// openPanes counts tm's panes whose program runs.
func openPanes(t *testing.T, tm *nativetest.Terminal) int {
	t.Helper()
	ps, err := tm.Panes()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range ps {
		if !p.Exited {
			n++
		}
	}
	return n
}

func paneOpen(tm *nativetest.Terminal, id int) bool {
	p, err := tm.Pane(id)
	return err == nil && !p.Exited
}

// wezEnv is a backend environment for a lead in pane lead of tm,
// keeping paneteam's state in state; drop lists variables the lead's
// shell did not have.
func wezEnv(tm *nativetest.Terminal, lead int, state string, drop ...string) backend.Env {
	get := tm.Getenv(lead)
	return backend.Env{
		Getenv: func(k string) string {
			switch {
			case k == "PANETEAM_STATE_DIR":
				return state
			case slices.Contains(drop, k):
				return ""
			}
			return get(k)
		},
		LookPath: func(name string) (string, error) {
			if name == tm.Kind {
				return tm.Bin, nil
			}
			return exec.LookPath(name)
		},
	}
}

// A WezTerm address without its socket could reach another WezTerm (the
// one the CLI finds by its GUI, or the caller's own variable), whose
// List is complete, successful and of the wrong terminal, and whose pane
// ids mean other panes. A lead without WEZTERM_UNIX_SOCKET is refused,
// recording nothing; and a member whose recorded address lost it (an
// older record, or a rewritten config.json) is neither judged gone, nor
// pruned, nor closed through another WezTerm.
func TestRecordsOfAPartialAddressStay(t *testing.T) {
	ours := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	other := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	runtime := t.TempDir()
	t.Setenv("WEZTERM_FAKE_RUNTIME_DIR", runtime)
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("DISPLAY", ":0")
	gui := filepath.Join(runtime, "x11-:0-org.wezfurlong.wezterm")
	if err := os.Symlink(filepath.Join(other.Dir, "sock"), gui); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	tt := team.Team{Root: t.TempDir(), Name: "alpha"}
	cfg := &team.Config{Name: "alpha"}

	partial := wezEnv(ours, ours.First, state, "WEZTERM_UNIX_SOCKET")
	if b, err := backend.Choose(partial, cfg, team.BackendWezTerm); err == nil {
		_, err = b.Spawn(context.Background(), backend.Spec{Team: tt, Config: cfg, Member: team.Member{Name: "bob", AgentID: "bob@alpha", Cwd: os.TempDir()}, Argv: []string{"sleep", "600"}})
		if err == nil || !strings.Contains(err.Error(), "WEZTERM_UNIX_SOCKET") {
			t.Fatalf("a spawn from a WezTerm pane without WEZTERM_UNIX_SOCKET: %v; want a refusal naming it", err)
		}
	} else if !strings.Contains(err.Error(), "WEZTERM_UNIX_SOCKET") {
		t.Fatalf("choosing WezTerm without WEZTERM_UNIX_SOCKET: %v; want a refusal naming it", err)
	}
	if got := records(t, state); len(got) != 0 {
		t.Fatalf("a refused spawn left records: %v", got)
	}
	if n := openPanes(t, ours); n != 1 {
		t.Fatalf("a refused spawn opened panes in the lead's WezTerm: %d open", n)
	}

	env := wezEnv(ours, ours.First, state)
	b, err := backend.Choose(env, cfg, team.BackendWezTerm)
	if err != nil {
		t.Fatal(err)
	}
	m := team.Member{Name: "alice", AgentID: "alice@alpha", Cwd: os.TempDir()}
	p, err := b.Spawn(context.Background(), backend.Spec{Team: tt, Config: cfg, Member: m, Argv: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	m.TmuxPaneID, m.BackendType, m.Paneteam = p.ID, p.Backend, p.Meta
	delete(m.Paneteam.Terminal.Env, "WEZTERM_UNIX_SOCKET") // the record lost it
	cfg.Members = append(cfg.Members, m)
	alice := cfg.Member("alice")
	backdate(t, state)
	id, _ := strconv.Atoi(alice.TmuxPaneID)

	for _, caller := range []string{"", filepath.Join(other.Dir, "sock")} {
		t.Setenv("WEZTERM_UNIX_SOCKET", caller)
		backend.NewCensus(env).Alive(context.Background(), cfg, alice)
		if removed, err := backend.PruneNativeRecords(context.Background(), env, false); err != nil || len(removed) != 0 {
			t.Errorf("cleanup with WEZTERM_UNIX_SOCKET=%q removed %v (%v); want nothing", caller, removed, err)
		}
		if got := members(records(t, state)); !slices.Equal(got, []string{"alice@alpha"}) {
			t.Fatalf("with WEZTERM_UNIX_SOCKET=%q: records of %v; want alice's kept", caller, got)
		}
		if err := b.Kill(context.Background(), cfg, alice); err == nil {
			t.Errorf("kill through an address without its socket succeeded; want a refusal")
		}
		if !paneOpen(ours, id) || openPanes(t, other) != 1 {
			t.Fatalf("a kill through an address without its socket closed a pane (alice's open: %v; the other WezTerm's open panes: %d)", paneOpen(ours, id), openPanes(t, other))
		}
	}
}

// A records folder whose address.json names another terminal than its
// own name says (written or copied there) is not judged by that
// terminal's List.
func TestRecordsFolderMustMatchItsAddress(t *testing.T) {
	tm := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	state := t.TempDir()
	env := wezEnv(tm, tm.First, state)
	addr, _ := json.Marshal(map[string]any{"terminal": "wezterm", "env": map[string]string{
		"WEZTERM_UNIX_SOCKET": env.Getenv("WEZTERM_UNIX_SOCKET"), "WEZTERM_PANE": env.Getenv("WEZTERM_PANE")}})
	dir := filepath.Join(state, "panes", "wezterm-0123456789abcdef")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "pane-"+hex.EncodeToString([]byte("77")))
	for path, b := range map[string][]byte{filepath.Join(dir, "address.json"): addr, rec: []byte("dan@alpha\n/x\n")} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	backdate(t, state)
	if removed, err := backend.PruneNativeRecords(context.Background(), env, false); err != nil || len(removed) != 0 {
		t.Errorf("pruned %v (%v) from a folder not named for its address; want nothing", removed, err)
	}
	if _, err := os.Stat(rec); err != nil {
		t.Errorf("the record in a folder not named for its address went: %v", err)
	}
}

// 'cleanup --orphans --dry-run' reports the records of panes gone and
// changes no file: not the records, not their folders, not the files a
// driver keeps of its panes.
func TestDryRunPruneChangesNothing(t *testing.T) {
	for _, kind := range []string{nativetest.WezTerm, nativetest.Zellij} {
		t.Run(kind, func(t *testing.T) {
			tm := nativetest.Start(t, kind, []string{"sleep", "600"}, nativetest.Options{})
			state, root := t.TempDir(), t.TempDir()
			env := wezEnv(tm, tm.First, state)
			tt := team.Team{Root: root, Name: "alpha"}
			cfg := &team.Config{Name: "alpha"}
			b, err := backend.Choose(env, cfg, kind)
			if err != nil {
				t.Fatal(err)
			}
			p, err := b.Spawn(context.Background(), backend.Spec{Team: tt, Config: cfg,
				Member: team.Member{Name: "bob", AgentID: "bob@alpha", Cwd: os.TempDir()}, Argv: []string{"sleep", "600"}})
			if err != nil {
				t.Fatal(err)
			}
			id, _ := strconv.Atoi(p.ID)
			pane, err := tm.Pane(id)
			if err != nil {
				t.Fatal(err)
			}
			if err := tm.Close(id); err != nil { // the person closes bob's pane
				t.Fatal(err)
			}
			testutil.Eventually(t, 5*time.Second, "bob's program ends", func() bool { return syscall.Kill(pane.PID, 0) != nil })
			backdate(t, state)
			before := tree(t, state, root)
			removed, err := backend.PruneNativeRecords(context.Background(), env, true)
			if err != nil || len(removed) != 1 {
				t.Errorf("dry run reported %v (%v); want bob's record", removed, err)
			}
			if after := tree(t, state, root); !maps.Equal(before, after) {
				t.Errorf("a dry run changed files:\nbefore %v\nafter  %v", before, after)
			}
			if removed, _ := backend.PruneNativeRecords(context.Background(), env, false); len(removed) != 1 {
				t.Errorf("the real prune removed %v; want bob's record", removed)
			}
		})
	}
}

// tree is every file and folder under roots, with its content and time.
func tree(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range roots {
		err := filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			v := fi.Mode().String() + " " + fi.ModTime().String()
			if d.Type().IsRegular() {
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				v += " " + string(b)
			}
			out[path] = v
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// victim starts a process of the test's own, leading its own process
// group as a Zellij pane's program does, for forged records to name.
func victim(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// Zellij's driver closes a pane by signalling the process its record
// names. Neither a record planted in the folder config.json names (which
// every member writes) nor one naming a pid without its start time makes
// kill-pane signal a process that is not the pane's: it refuses, saying
// why, and the process lives on.
func TestZellijForgedRecordsSignalNothing(t *testing.T) {
	tm := nativetest.Start(t, nativetest.Zellij, []string{"sleep", "600"}, nativetest.Options{})
	state := t.TempDir()
	env := wezEnv(tm, tm.First, state)
	tt := team.Team{Root: t.TempDir(), Name: "alpha"}
	cfg := &team.Config{Name: "alpha"}
	b, err := backend.Choose(env, cfg, team.BackendZellij)
	if err != nil {
		t.Fatal(err)
	}
	m := team.Member{Name: "alice", AgentID: "alice@alpha", Cwd: os.TempDir()}
	p, err := b.Spawn(context.Background(), backend.Spec{Team: tt, Config: cfg, Member: m, Argv: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	m.TmuxPaneID, m.BackendType, m.Paneteam = p.ID, p.Backend, p.Meta
	cfg.Members = append(cfg.Members, m)
	alice := cfg.Member("alice")
	own := alice.Paneteam.Terminal.Dir
	if rel, err := filepath.Rel(tt.Dir(), own); err == nil && !strings.HasPrefix(rel, "..") {
		t.Fatalf("Zellij's driver keeps its files in %s, inside the team's folder %s", own, tt.Dir())
	}
	recName := "zellij-pane-" + alice.TmuxPaneID + ".json"
	forge := func(dir string, pid int, start string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"pid": pid, "start": start})
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, recName), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	v := victim(t)
	vStart, err := proc.StartTime(v.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	untouched := func(when string) {
		t.Helper()
		time.Sleep(100 * time.Millisecond)
		var ws syscall.WaitStatus
		if pid, _ := syscall.Wait4(v.Process.Pid, &ws, syscall.WNOHANG, nil); pid != 0 {
			t.Fatalf("%s: the test's own process was signalled (%v)", when, ws)
		}
	}

	// config.json names a folder of the member's, with a record naming
	// the test's process by pid and start time.
	planted := filepath.Join(tt.Dir(), "panes", "zellij-forged")
	forge(planted, v.Process.Pid, vStart)
	alice.Paneteam.Terminal.Dir = planted
	err = b.Kill(context.Background(), cfg, alice)
	if err == nil || !strings.Contains(err.Error(), planted) {
		t.Fatalf("kill with config.json naming a planted folder: %v; want a refusal naming it", err)
	}
	untouched("a planted folder")
	alice.Paneteam.Terminal.Dir = own

	// A record in paneteam's own folder naming a pid without its start
	// time (any process may have that pid).
	forge(own, v.Process.Pid, "")
	err = b.Kill(context.Background(), cfg, alice)
	if err == nil || !strings.Contains(err.Error(), "start time") {
		t.Fatalf("kill with a record naming a pid without its start: %v; want a refusal saying why", err)
	}
	untouched("a record without a start time")
	// One whose start time is not the process's: that process is not
	// the pane's program, which is gone.
	forge(own, v.Process.Pid, vStart+"0")
	if err := b.Kill(context.Background(), cfg, alice); err != nil {
		t.Fatalf("kill with a record naming another start time: %v; want the pane judged gone", err)
	}
	untouched("a record naming another start time")

	// A pane's real record still closes it.
	p2, err := b.Spawn(context.Background(), backend.Spec{Team: tt, Config: cfg, Member: team.Member{Name: "bob", AgentID: "bob@alpha", Cwd: os.TempDir()}, Argv: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	bob := team.Member{Name: "bob", AgentID: "bob@alpha", TmuxPaneID: p2.ID, BackendType: p2.Backend, Paneteam: p2.Meta}
	id, _ := strconv.Atoi(bob.TmuxPaneID)
	if err := b.Kill(context.Background(), cfg, &bob); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "bob's pane closes", func() bool { return !paneOpen(tm, id) })
}
