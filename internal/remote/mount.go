package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// SSHFSOptions make reads through the mount never torn or stale: with
// sshfs's default caches a reader on the host saw truncated JSON in about
// one read in eight while the lead rewrote the file (a cached size), so
// attributes (attr_timeout=0), sshfs's own folder cache (dir_cache=no) and
// absent names (negative_timeout=0) are never cached.
//
// Names that exist are kept for 1 s (entry_timeout=1): sshfs addresses
// every file by its path, so a kept name only spares the kernel asking
// again for each folder on the way (teams, the team, inboxes) before
// every file operation; what it then asks for (attributes, open, read) is
// always the file now at that path, even after the lead renamed another
// over it. The kernel asks anew for an exclusive create (mkdir of a lock,
// O_EXCL, link) and a rename's target, and a kept name whose file is gone
// answers "no such file" at its next use. The price: within that second,
// a file the lead removed cannot be made again from the host by a
// non-exclusive create (O_CREAT alone fails with "no such file"), so 1 s,
// not longer; paneteam creates shared files exclusively. This cut one
// message from a teammate on the host from about 120 SFTP requests to 50.
// passive: sshfs speaks SFTP on its stdin and stdout, which ssh connects
// to the lead's sftp-server.
const SSHFSOptions = "passive,dir_cache=no,attr_timeout=0,entry_timeout=1,negative_timeout=0"

// MountSpec says what to mount where.
type MountSpec struct {
	Root, Team string
	// Exe is the lead's paneteam, which starts the confined sftp-server.
	Exe string
	// Dir is the mount point on the host (made when missing); it and
	// its empty parents up to ConfigDir are removed when Mount fails.
	Dir, ConfigDir string
	// Unconfined serves the lead's whole file system, for platforms that
	// cannot confine sftp-server; only when the person asked for it.
	Unconfined bool
	// Log receives sftp-server's and ssh's messages (a file on the lead).
	Log *os.File
}

// Mount is a running mount: the lead's sftp-server and the ssh session
// carrying it to sshfs on the host.
type Mount struct {
	Dir       string
	ServerPID int
	SSHPID    int
}

// mountStarted, when set (by tests only), is called once the mount's ssh
// is started and before Mount waits for the team to show on the host.
var mountStarted func()

// Mount serves the team's folders to sshfs on the host, over the master,
// and returns once the team is visible there. The processes run in their
// own session: they outlive the command that started them, and end when
// the mount is unmounted or the connection drops.
func (c *Client) Mount(ctx context.Context, s MountSpec) (Mount, error) {
	var server *exec.Cmd
	remotePath := ":/"
	switch {
	case s.Unconfined:
		server = exec.Command(findSFTPServer())
		remotePath = ":" + s.Root
	case !CanConfine:
		return Mount{}, errors.New("this platform cannot confine the sftp server to the team's folders (Linux can): the host could read and write everything you can; pass --unconfined to accept that")
	default:
		server = ConfinedCommand(s.Exe, s.Root, s.Team)
	}
	script := "mkdir -p " + Quote(s.Dir) + " && exec sshfs -f -o " + SSHFSOptions + " " + Quote(remotePath) + " " + Quote(s.Dir)
	mnt := c.Command(context.Background(), script)
	mnt.SysProcAttr = sessionAttr()
	toSSH, err := server.StdoutPipe()
	if err != nil {
		return Mount{}, err
	}
	mnt.Stdin = toSSH
	fromSSH, err := mnt.StdoutPipe()
	if err != nil {
		return Mount{}, err
	}
	server.Stdin = fromSSH
	server.Stderr, mnt.Stderr = s.Log, s.Log
	if err := server.Start(); err != nil {
		return Mount{}, fmt.Errorf("start the sftp server for %s: %w", c.Host, err)
	}
	if err := mnt.Start(); err != nil {
		server.Process.Kill()
		server.Wait()
		return Mount{}, fmt.Errorf("start sshfs on %s: %w", c.Host, err)
	}
	m := Mount{Dir: s.Dir, ServerPID: server.Process.Pid, SSHPID: mnt.Process.Pid}
	ended := make(chan struct{})
	go func() { mnt.Wait(); close(ended) }()
	go server.Wait()
	if mountStarted != nil {
		mountStarted()
	}

	wait := fmt.Sprintf("i=0; while [ ! -d %s ]; do i=$((i+1)); [ $i -gt 200 ] && exit 3; sleep 0.05; done", Quote(s.Dir+"/teams/"+s.Team))
	res := make(chan error, 1)
	go func() { _, err := c.Run(ctx, wait, nil); res <- err }()
	select {
	case err = <-res:
	case <-ended:
		err = errors.New("sshfs ended")
	}
	if err != nil {
		syscallKill(m.ServerPID)
		syscallKill(m.SSHPID)
		<-ended
		c.undoMount(ctx, s)
		if log := logText(s.Log); sessionRefused(log) && !errors.Is(err, ErrSessions) {
			err = c.explain(err, log)
		}
		return Mount{}, fmt.Errorf("mount the team on %s at %s: %w%s", c.Host, s.Dir, err, logTail(s.Log))
	}
	return m, nil
}

// Unmount unmounts dir on the host and removes the folder and its empty
// parents up to configDir ("": none); a mount that is gone already is
// fine.
func (c *Client) Unmount(ctx context.Context, dir, configDir string) error {
	_, err := c.Run(ctx, UnmountScript(dir, configDir), nil)
	return err
}

// UnmountScript unmounts dir if mounted (lazily when busy) and removes
// the then empty folder, and its parents up to configDir ("": none) that
// are empty too (paneteam/mnt/<team> once the team's last mount on the
// host is gone).
func UnmountScript(dir, configDir string) string {
	d := Quote(dir)
	script := "if [ -d " + d + " ]; then fusermount3 -u " + d + " 2>/dev/null || fusermount -u " + d + " 2>/dev/null || fusermount3 -uz " + d + " 2>/dev/null || fusermount -uz " + d + " 2>/dev/null; rmdir " + d + " 2>/dev/null; fi"
	for _, p := range mountParents(dir, configDir) {
		script += "; rmdir " + Quote(p) + " 2>/dev/null"
	}
	return script + "; true"
}

// mountParents are the folders between a mount point and configDir
// (excluded), innermost first: made for the mount, and removed with it
// once empty.
func mountParents(dir, configDir string) []string {
	var out []string
	for d := filepath.Dir(dir); configDir != "" && strings.HasPrefix(d, configDir+"/"); d = filepath.Dir(d) {
		out = append(out, d)
	}
	return out
}

func findSFTPServer() string {
	for _, p := range SFTPServers {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "sftp-server"
}

// undoMount unmounts and removes what a failed Mount may have left on the
// host: the mount point and its empty parents up to the config folder.
// The session the mount held is being given back as this runs, so a
// refused session is tried again for a moment.
func (c *Client) undoMount(ctx context.Context, s MountSpec) {
	c.runAsSessionsFree(ctx, UnmountScript(s.Dir, s.ConfigDir), 2*time.Second)
}

func logText(f *os.File) string {
	if f == nil {
		return ""
	}
	b, _ := os.ReadFile(f.Name())
	return string(b)
}

func logTail(f *os.File) string {
	b := strings.TrimSpace(logText(f))
	if b == "" {
		return ""
	}
	return " (" + lastLine(b) + ")"
}

// waitGone waits up to d for pid to end.
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return !alive(pid)
}
