package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// lab is a lead's team root, a second host that cannot see it, and the
// environment paneteam reads there.
type lab struct {
	root, team string
	host       *sshhost.Host
	env        map[string]string
	exe        string
	pids       []int // the lead's processes serving the lab's mounts
}

func newLab(t *testing.T, opts sshhost.Options) *lab {
	t.Helper()
	testutil.RequireTool(t, "sshfs")
	root := testutil.Root(t)
	l := &lab{root: root, team: "crew", exe: testutil.Binary(t)}
	for _, d := range []string{"teams/crew", "tasks/crew", "teams/private", "tasks/private"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "teams/crew/config.json"), []byte(`{"name":"crew","members":[]}`), 0o600)
	os.WriteFile(filepath.Join(root, "teams/private/config.json"), []byte(`{"name":"private"}`), 0o600)
	os.WriteFile(filepath.Join(root, "secret"), []byte("lead only"), 0o600)
	opts.Hide = append(opts.Hide, root)
	l.host = sshhost.Start(t, opts)
	l.env = map[string]string{remote.EnvSSH: l.host.SSH(), "XDG_RUNTIME_DIR": testutil.ShortTempDir(t)}
	return l
}

func (l *lab) getenv(k string) string { return l.env[k] }

func (l *lab) spawn(t *testing.T, member string, argv ...string) ([]string, *bytes.Buffer) {
	t.Helper()
	var say bytes.Buffer
	pane, undo, err := remote.Start(context.Background(), remote.Spawn{
		Getenv: l.getenv, Host: sshhost.Alias, Root: l.root, Team: l.team, Member: member,
		Exe: l.exe, Argv: argv, Env: []string{"PANETEAM_TEAM=" + l.team, "PANETEAM_AGENT=" + member, "PANETEAM_ROOT=/lead/only"}, Say: &say,
	})
	if err != nil {
		t.Fatalf("start %s on the host: %v", member, err)
	}
	t.Cleanup(undo)
	var st remote.State
	b, _ := os.ReadFile(filepath.Join(remote.StateDir(l.getenv, l.root, l.team), member+".json"))
	if err := json.Unmarshal(b, &st); err != nil || st.ServerPID == 0 || st.SSHPID == 0 {
		t.Fatalf("the lead's record of %s: %v %s", member, err, b)
	}
	l.pids = append(l.pids, st.ServerPID, st.SSHPID)
	return pane, &say
}

// startPane runs the pane's command line as a terminal would.
func startPane(t *testing.T, argv []string) (*exec.Cmd, *testutil.Buffer, chan error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	out := &testutil.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, out, done
}

// leftOnHost lists what a teammate could leave on the host: FUSE mounts,
// paneteam's folders, sshfs or teammate processes.
func (l *lab) leftOnHost(t *testing.T) string {
	return strings.TrimSpace(l.host.MustRun(t, `grep fuse /proc/mounts; find `+sshhost.Home+`/.claude -mindepth 1 -not -path '*/.cache*' 2>/dev/null; ps -eo args | grep -E '^(sshfs|sleep|paneteam|/root/.cache)' | grep -v grep; true`))
}

// leftOnLead lists what the lab's teammates could leave on the lead: the
// sftp-servers and ssh sessions their mounts used, any ssh on the lab's
// connection (its socket is under the lab's own runtime folder, so other
// tests running at the same time are not counted), and records.
func (l *lab) leftOnLead(t *testing.T) string {
	var left []string
	for _, pid := range l.pids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && (bytes.Contains(b, []byte("sftp")) || bytes.Contains(b, []byte("ssh"))) {
			left = append(left, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(l.env["XDG_RUNTIME_DIR"])) {
			left = append(left, p+" "+string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	recs, _ := filepath.Glob(filepath.Join(l.env["XDG_RUNTIME_DIR"], "paneteam-remote", "*", "*"))
	return strings.TrimSpace(strings.Join(append(left, recs...), "\n"))
}

func TestRemoteTeammateSeesOnlyItsTeamAndLeavesNothing(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	// An in-process teammate's record on the lead: its pids, for the
	// lead to signal.
	os.MkdirAll(filepath.Join(l.root, "teams/crew/panes"), 0o700)
	os.WriteFile(filepath.Join(l.root, "teams/crew/panes/bob.json"), []byte(`{"hostPid":1}`), 0o600)
	pane, say := l.spawn(t, "alice", "sh", "-c", `
cd "$PANETEAM_ROOT" || exit 1
echo "$PANETEAM_ROOT $PANETEAM_AGENT" > tasks/crew/from-host
cat teams/crew/panes/bob.json >/dev/null 2>&1 && echo read-panes >> tasks/crew/from-host
echo '{}' > teams/crew/panes/forged.json 2>/dev/null && echo wrote-panes >> tasks/crew/from-host
ln -s ../../secret teams/crew/link 2>/dev/null && echo linked >> tasks/crew/from-host
ln teams/crew/config.json tasks/crew/hard 2>/dev/null && echo linked >> tasks/crew/from-host
ln usr/lib/openssh/sftp-server teams/crew/prog 2>/dev/null && echo linked >> tasks/crew/from-host
ln teams/crew/config.json teams/crew/second-name 2>/dev/null || echo no-link-inside >> tasks/crew/from-host
touch x 2>/dev/null && echo wrote-root >> tasks/crew/from-host
cat teams/crew/config.json > tasks/crew/seen
ls -A . teams tasks > tasks/crew/listing
exec sleep 60`)
	if !strings.Contains(say.String(), "copying paneteam") {
		t.Errorf("the first spawn on a host did not say it copies paneteam there: %q", say.String())
	}
	paneCmd, out, done := startPane(t, pane)
	from := filepath.Join(l.root, "tasks/crew/from-host")
	testutil.Eventually(t, 20*time.Second, "the teammate on the host wrote to the team; its pane:\n"+out.String(), func() bool {
		b, _ := os.ReadFile(filepath.Join(l.root, "tasks/crew/listing"))
		return len(b) > 0
	})
	b, _ := os.ReadFile(from)
	if strings.Contains(string(b), "panes") {
		t.Errorf("the host reached the lead's in-process records in teams/crew/panes: %q", b)
	}
	if strings.Contains(string(b), "linked") || strings.Contains(string(b), "wrote-root") {
		t.Errorf("a symlink, a link out of a team folder, or a file outside the team's folders was made through the mount: %q", b)
	}
	if strings.Contains(string(b), "no-link-inside") {
		t.Errorf("a hard link inside a team folder (paneteam's atomic create) failed through the mount")
	}
	if !strings.HasPrefix(string(b), sshhost.Home+"/.claude/paneteam/mnt/crew/alice alice") {
		t.Errorf("the teammate's PANETEAM_ROOT is not its mount on the host: %q", b)
	}
	listing, _ := os.ReadFile(filepath.Join(l.root, "tasks/crew/listing"))
	for _, other := range []string{"private", "secret"} {
		if strings.Contains(string(listing), other) {
			t.Errorf("the host sees %s of the lead's machine:\n%s", other, listing)
		}
	}
	if seen, _ := os.ReadFile(filepath.Join(l.root, "tasks/crew/seen")); !strings.Contains(string(seen), `"crew"`) {
		t.Errorf("the host did not read the team's config: %q", seen)
	}
	// The host's own mounts: this teammate's only.
	if got := l.host.MustRun(t, "grep -c fuse.sshfs /proc/mounts"); strings.TrimSpace(got) != "1" {
		t.Errorf("mounts on the host: %s", got)
	}

	// The pane is closed (as kill-pane does): its ssh ends, the host's
	// paneteam stops the teammate and unmounts; Stop ends the rest.
	t0 := time.Now()
	closePane(t, paneCmd, done)
	t.Log("pane closed", time.Since(t0))
	if err := remote.Stop(context.Background(), l.getenv, l.root, l.team, "alice"); err != nil {
		t.Fatal(err)
	}
	t.Log("stopped", time.Since(t0))
	testutil.Eventually(t, 10*time.Second, "nothing left on the host", func() bool { return l.leftOnHost(t) == "" })
	testutil.Eventually(t, 10*time.Second, "nothing left on the lead", func() bool { return l.leftOnLead(t) == "" })
}

// closePane hangs the pane up, as closing a terminal or tmux kill-pane does.
func closePane(t *testing.T, cmd *exec.Cmd, done chan error) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pane's ssh did not end on a hang-up")
	}
}
