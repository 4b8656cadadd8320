//go:build linux

// Package sshhost starts a second "host" for tests of teammates on other
// machines: Debian's sshd on 127.0.0.1 inside its own pid, mount and uts
// namespaces, with a tmpfs over the home folder and over every lead folder
// the test names, so the host reaches the team only through ssh and never
// writes this machine's real ~/.claude. The test makes the host key, the
// client key and an ssh config file naming the host; connections go
// through a proxy of the test's that can add delay, drop or freeze them.
package sshhost

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Alias is the name the config file gives the host, through the proxy;
// Direct the same host past the proxy (for a test's own look while the
// proxy freezes); Stranger the host without its key in known_hosts; NoKey
// the host without the client key (so ssh would have to ask for a
// password).
const (
	Alias    = "remote"
	Direct   = "direct"
	Stranger = "stranger"
	NoKey    = "nokey"
)

// Home is the remote user's home folder (root's), a tmpfs on the host.
const Home = "/root"

// Options shape the host.
type Options struct {
	// Hide lists lead folders covered by an empty tmpfs on the host (the
	// team root), so the host reaches them only through ssh.
	Hide []string
	// Shell is the remote user's login shell (default: the passwd one).
	Shell string
	// ClientAlive is sshd's ClientAliveInterval (0: off, as Debian ships).
	ClientAlive time.Duration
	// Share lists folders of this machine the host sees anyway, read-only,
	// at the same path, even under its home (a program both use, such as
	// the cached Claude Code). Paths without spaces or colons.
	Share []string
	// SetEnv is the environment sshd gives every session (KEY=VALUE,
	// values without spaces): what the host's own login would set.
	SetEnv []string
	// Same lists folders of this machine the host sees at the same path,
	// read and write, as both would see a folder of a shared file system
	// (NFS): a bind mount of the real folder, made after Hide, so a folder
	// can be hidden and shown again. Paths without spaces or colons.
	Same []string
	// MaxSessions is sshd's MaxSessions (0: sshd's default, 10).
	MaxSessions int
}

// Host is a running second host.
type Host struct {
	// Config is the ssh config file naming Alias, Stranger and NoKey.
	Config string
	// Proxy carries every connection to the host.
	Proxy *Proxy
	dir   string
	cmd   *exec.Cmd
}

// Start starts the host and stops it (every process on it) when the test
// ends. It skips (or fails under PANETEAM_REQUIRE_ALL=1) when this machine
// cannot run it: not root, no unshare, no sshd.
func Start(t testing.TB, opts Options) *Host {
	t.Helper()
	if os.Geteuid() != 0 {
		missing(t, "root (namespaces and mounts for the second host)")
	}
	unshare := tool(t, "unshare", "/usr/bin/unshare")
	sshd := tool(t, "sshd", "/usr/sbin/sshd")
	keygen := tool(t, "ssh-keygen", "/usr/bin/ssh-keygen")
	tool(t, "ssh", "/usr/bin/ssh")

	dir := testutil.ShortTempDir(t)
	for _, k := range []string{"hostkey", "clientkey"} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen %s: %v\n%s", k, err, out)
		}
	}
	copyFile(t, filepath.Join(dir, "clientkey.pub"), filepath.Join(dir, "authorized_keys"))
	port := freePort(t)
	sshdConfig := filepath.Join(dir, "sshd_config")
	write(t, sshdConfig, sshdConf(dir, port, opts))

	script := hostScript(opts)
	args := []string{"--pid", "--fork", "--kill-child", "--mount", "--uts", "--mount-proc", "--propagation", "private",
		"sh", "-c", script, "host", sshd, sshdConfig, dir}
	args = append(args, opts.Hide...)
	h := &Host{dir: dir, cmd: exec.Command(unshare, args...)}
	h.cmd.Env = append(os.Environ(), "PT_SHARE="+strings.Join(opts.Share, ":"), "PT_SAME="+strings.Join(opts.Same, ":"))
	// Should the test process die without its cleanups, unshare dies with
	// it, and with --kill-child takes the host's every process along.
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	log := &testutil.Buffer{}
	h.cmd.Stdout, h.cmd.Stderr = log, log
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("start the second host: %v", err)
	}
	exited := make(chan struct{})
	go func() { h.cmd.Wait(); close(exited) }()
	t.Cleanup(func() { h.stop(t, exited) })
	testutil.Eventually(t, 10*time.Second, "sshd listening on the second host; its log:\n"+log.String(), func() bool {
		return strings.Contains(log.String(), "Server listening")
	})

	h.Proxy = startProxy(t, fmt.Sprintf("127.0.0.1:%d", port))
	hostPub, err := os.ReadFile(filepath.Join(dir, "hostkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	known := fmt.Sprintf("[127.0.0.1]:%d %s", h.Proxy.Port, bytes.TrimSpace(hostPub))
	write(t, filepath.Join(dir, "empty_known_hosts"), "")
	h.Config = filepath.Join(dir, "ssh_config")
	write(t, filepath.Join(dir, "known_hosts"), known+"\n"+fmt.Sprintf("[127.0.0.1]:%d %s\n", port, bytes.TrimSpace(hostPub)))
	write(t, h.Config, clientConf(dir, h.Proxy.Port, port))
	return h
}

// hostScript runs inside the namespaces as root: its own hostname and
// /run, tmpfs over the home folder and the hidden lead folders, an
// optional login shell, then sshd in the foreground ($1 sshd, $2 its
// config, $3 the test folder, then the folders to hide).
func hostScript(opts Options) string {
	s := `set -e
sshd=$1 conf=$2 dir=$3; shift 3
hostname paneteam-remote
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/sshd
i=0; IFS=:; for d in $PT_SHARE; do i=$((i+1)); mkdir -p /run/share/$i; mount --bind "$d" /run/share/$i; done; unset IFS
i=0; IFS=:; for d in $PT_SAME; do i=$((i+1)); mkdir -p /run/same/$i; mount --bind "$d" /run/same/$i; done; unset IFS
mount -t tmpfs -o mode=0700 tmpfs ` + Home + `
for d in "$@"; do mkdir -p "$d"; mount -t tmpfs -o mode=0700 tmpfs "$d"; done
i=0; IFS=:; for d in $PT_SHARE; do i=$((i+1)); mkdir -p "$d"; mount --bind -o ro /run/share/$i "$d"; done; unset IFS
i=0; IFS=:; for d in $PT_SAME; do i=$((i+1)); mkdir -p "$d"; mount --bind /run/same/$i "$d"; done; unset IFS
`
	if opts.Shell != "" {
		s += `sed 's#^\(root:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:\).*#\1` + opts.Shell + `#' /etc/passwd > "$dir/passwd"
mount --bind "$dir/passwd" /etc/passwd
`
	}
	return s + `exec "$sshd" -D -e -f "$conf"
`
}

func sshdConf(dir string, port int, opts Options) string {
	alive := ""
	if opts.ClientAlive > 0 {
		alive = fmt.Sprintf("ClientAliveInterval %d\nClientAliveCountMax 2\n", int(opts.ClientAlive.Seconds()))
	}
	if opts.MaxSessions > 0 {
		alive += fmt.Sprintf("MaxSessions %d\n", opts.MaxSessions)
	}
	if len(opts.SetEnv) > 0 {
		alive += "SetEnv " + strings.Join(opts.SetEnv, " ") + "\n"
	}
	return fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/hostkey
AuthorizedKeysFile %s/authorized_keys
PidFile none
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
AcceptEnv none
PrintMotd no
%s`, port, dir, dir, alive)
}

// clientConf names the host three ways; nothing in it comes from the
// person's own ssh configuration or known_hosts.
func clientConf(dir string, port, direct int) string {
	common := fmt.Sprintf(`  HostName 127.0.0.1
  Port %d
  User root
  IdentitiesOnly yes
  GlobalKnownHostsFile /dev/null
  LogLevel ERROR
`, port)
	return fmt.Sprintf(`Host %s
%s  IdentityFile %s/clientkey
  UserKnownHostsFile %s/known_hosts
Host %s
%s  IdentityFile %s/clientkey
  UserKnownHostsFile %s/empty_known_hosts
  StrictHostKeyChecking yes
Host %s
%s  IdentityFile none
  IdentityAgent none
  UserKnownHostsFile %s/known_hosts
Host %s
  HostName 127.0.0.1
  Port %d
  User root
  IdentitiesOnly yes
  GlobalKnownHostsFile /dev/null
  LogLevel ERROR
  IdentityFile %s/clientkey
  UserKnownHostsFile %s/known_hosts
`, Alias, common, dir, dir, Stranger, common, dir, dir, NoKey, common, dir, Direct, direct, dir, dir)
}

// SSH is the ssh command line that reaches the host, as PANETEAM_SSH
// takes it.
func (h *Host) SSH() string { return "ssh -F " + h.Config }

// Run runs a POSIX sh script on the host as the remote user, past the
// proxy, and returns its combined output. Scripts are the test's own
// text.
func (h *Host) Run(t testing.TB, script string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ssh", "-F", h.Config, "-o", "BatchMode=yes", Direct, "sh -c '"+strings.ReplaceAll(script, "'", `'\''`)+"'").CombinedOutput()
	return string(out), err
}

// MustRun is Run that fails the test on an error.
func (h *Host) MustRun(t testing.TB, script string) string {
	t.Helper()
	out, err := h.Run(t, script)
	if err != nil {
		t.Fatalf("on the host: %s: %v\n%s", script, err, out)
	}
	return out
}

// stop ends sshd inside the namespaces (unshare ignores SIGTERM while it
// waits; its child is sshd, the pid namespace's first process, whose end
// takes every other process on the host with it).
func (h *Host) stop(t testing.TB, exited chan struct{}) {
	if pid := childOf(h.cmd.Process.Pid); pid > 0 {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	select {
	case <-exited:
		return
	case <-time.After(5 * time.Second):
	}
	if pid := childOf(h.cmd.Process.Pid); pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		h.cmd.Process.Kill()
		t.Errorf("the second host did not stop; killed unshare (pid %d)", h.cmd.Process.Pid)
	}
}

// childOf is the first child of pid, 0 when it has none.
func childOf(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
}

func missing(t testing.TB, what string) {
	t.Helper()
	if testutil.RequireAll() {
		t.Fatalf("the second host needs %s (PANETEAM_REQUIRE_ALL=1)", what)
	}
	t.Skipf("SKIPPED: the second host needs %s", what)
}

// tool finds a program on PATH or at Debian's place for it.
func tool(t testing.TB, name, debian string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat(debian); err == nil {
		return debian
	}
	missing(t, name+" (Debian: openssh-server, openssh-client, util-linux)")
	return ""
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(b))
}
