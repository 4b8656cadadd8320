package remote

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Spawn is a teammate to start on a host.
type Spawn struct {
	Getenv func(string) string
	Host   string
	Root   string // the lead's team root
	Team   string
	Member string
	// Exe is the lead's paneteam binary: it serves the mount and is
	// copied to the host when the host has not got it yet.
	Exe string
	// Argv and Env are the teammate's command and the variables paneteam
	// gives it, as for a local pane; Cwd is a folder on the host (default:
	// the remote user's home).
	Argv, Env []string
	Cwd       string
	// Claude: link the team into the host's config folder, where Claude
	// Code looks for it.
	Claude     bool
	Unconfined bool
	// SSHFS mounts the team with sshfs even when the host sees the
	// team's folders at the same paths (a shared file system).
	SSHFS bool
	// Say is where paneteam tells the person what it does on the host.
	Say io.Writer
	// Hold, when set, keeps the host's start lock (see lockStart) after
	// Start returns, until the teammate's pane has its session: Start
	// hands Hold the release, for the caller to call once the pane is
	// up. The lock ends with the process too, and undo releases it.
	// Without Hold, Start releases it as it returns.
	Hold func(release func())
}

// State is what the lead keeps about a remote teammate, in a file of its
// own (never in the team's folders, which the host can write).
type State struct {
	Host        string   `json:"host"`
	SSH         []string `json:"ssh"`
	ControlPath string   `json:"controlPath"`
	Mount       string   `json:"mount"`
	ServerPID   int      `json:"serverPid"`
	SSHPID      int      `json:"sshPid"`
	// Shared: the host sees the team root at the same path (a shared
	// file system); there is no mount, Mount is the root.
	Shared bool `json:"shared,omitempty"`
	// Teammate is what the host runs, kept so that Reconnect can start
	// it again after the connection ended.
	Teammate *Teammate `json:"teammate,omitempty"`
	// ConfigDir is the host's Claude Code config folder, which holds the
	// mount (paneteam/mnt/<team>/<member>); "" in older records.
	ConfigDir string `json:"configDir,omitempty"`
	// Up is the mark the teammate's pane leaves in the team's folder once
	// its session is open (Job.Up); Stop removes one left behind.
	Up string `json:"up,omitempty"`
}

// Teammate is a remote teammate's command as Start was given it.
type Teammate struct {
	Argv       []string `json:"argv"`
	Env        []string `json:"env,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	Claude     bool     `json:"claude,omitempty"`
	Unconfined bool     `json:"unconfined,omitempty"`
	SSHFS      bool     `json:"sshfs,omitempty"`
}

// StateDir is the lead's private folder for one team's remote teammates:
// connection sockets, logs and State files. It is short, for the socket
// path limit.
func StateDir(getenv func(string) string, root, team string) string {
	base := getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), fmt.Sprintf("paneteam-%d", os.Getuid()))
	}
	sum := sha256.Sum256([]byte(root + "\x00" + team))
	return filepath.Join(base, "paneteam-remote", fmt.Sprintf("%x", sum[:6]))
}

func statePath(dir, member string) string { return filepath.Join(dir, member+".json") }

// checkMember refuses a member name that is not one file name: the name
// comes from config.json, which the host can write, and must never lead
// the lead to a record outside its own folder (a record names the ssh
// command paneteam runs).
func checkMember(member string) error {
	if member == "" || member == "." || member == ".." || strings.ContainsAny(member, "/\\\x00") {
		return fmt.Errorf("member name %q cannot be a teammate paneteam started on a host (config.json was changed by something else): leaving it alone", member)
	}
	return nil
}

// Start connects to the host (or reuses the team's connection), checks
// the host, brings paneteam there if needed, mounts the team's folders
// for this teammate, and returns the command line of the teammate's pane:
// an `ssh -tt` session over the same connection. undo takes everything
// back when the pane cannot be started.
func Start(ctx context.Context, s Spawn) (argv []string, undo func(), err error) {
	if err := checkMember(s.Member); err != nil {
		return nil, nil, err
	}
	dir := StateDir(s.Getenv, s.Root, s.Team)
	c, err := NewClient(s.Getenv, s.Host, dir, s.Team)
	if err != nil {
		return nil, nil, err
	}
	lock, err := lockStart(ctx, c, s.Say)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil || s.Hold == nil {
			lock.release()
		}
	}()
	closeIfIdle := func() {
		if idle(dir) {
			c.Close(context.WithoutCancel(ctx))
			lock.drop()
		}
	}
	if err := c.Connect(ctx); err != nil {
		closeIfIdle()
		return nil, nil, err
	}
	facts, err := c.Probe(ctx)
	if err != nil {
		closeIfIdle()
		return nil, nil, err
	}
	bin, err := c.Install(ctx, facts, s.Exe, s.Say)
	if err != nil {
		closeIfIdle()
		return nil, nil, err
	}
	if err := c.checkCommand(ctx, s.Argv[0], filepath.Dir(bin)); err != nil {
		closeIfIdle()
		return nil, nil, err
	}
	shared := false
	if !s.SSHFS {
		ok, why, err := c.sameFolders(ctx, s.Root, s.Team)
		if err != nil {
			closeIfIdle()
			return nil, nil, err
		}
		if why != "" {
			fmt.Fprintf(s.Say, "paneteam: %s: mounting the team there with sshfs\n", why)
		}
		shared = ok
	}
	var m Mount
	if shared {
		fmt.Fprintf(s.Say, "paneteam: %s sees the team at %s (a shared file system): no sshfs mount\n", s.Host, s.Root)
		m = Mount{Dir: s.Root}
	} else {
		mountDir := filepath.Join(facts.ConfigDir, "paneteam", "mnt", s.Team, s.Member)
		log, err := os.OpenFile(filepath.Join(dir, s.Member+".log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			closeIfIdle()
			return nil, nil, err
		}
		defer log.Close()
		m, err = c.Mount(ctx, MountSpec{Root: s.Root, Team: s.Team, Exe: s.Exe, Dir: mountDir, ConfigDir: facts.ConfigDir, Unconfined: s.Unconfined, Log: log})
		if err != nil {
			os.Remove(log.Name())
			closeIfIdle()
			return nil, nil, err
		}
	}
	up := newUpMark()
	st := State{Host: s.Host, SSH: c.base, ControlPath: c.ControlPath, Mount: m.Dir, ServerPID: m.ServerPID, SSHPID: m.SSHPID, Shared: shared, ConfigDir: facts.ConfigDir,
		Teammate: &Teammate{Argv: s.Argv, Env: s.Env, Cwd: s.Cwd, Claude: s.Claude, Unconfined: s.Unconfined, SSHFS: s.SSHFS}, Up: up}
	if err := writeState(statePath(dir, s.Member), st); err != nil {
		if !shared {
			c.Unmount(ctx, m.Dir, facts.ConfigDir)
		}
		closeIfIdle()
		return nil, nil, err
	}
	job := Job{Team: s.Team, Member: s.Member, Mount: m.Dir, Shared: shared, ConfigDir: facts.ConfigDir, Link: s.Claude,
		Argv: s.Argv, Env: hostEnv(s.Env, m.Dir), Cwd: s.Cwd, Bin: filepath.Dir(bin), Grace: Keepalive * KeepaliveCount, Up: up}
	// Stop takes the start lock itself when this teammate is the last.
	undo = func() { lock.release(); Stop(context.WithoutCancel(ctx), s.Getenv, s.Root, s.Team, s.Member) }
	if s.Hold != nil {
		// The pane's session opens a moment after its ssh starts: the
		// lock is let go once the pane says it is up on the host (or
		// after upWait, when it never will), so a start waiting for the
		// lock never takes the session the pane is opening.
		mark := filepath.Join(s.Root, "teams", s.Team, up)
		s.Hold(func() {
			waitUp(mark, upWait)
			os.Remove(mark)
			lock.release()
		})
	}
	return c.Argv("exec "+Line(bin, "remote", "run", job.Encode()), true), undo, nil
}

// Reconnect starts again, on its host, a teammate whose connection ended
// (dropped, frozen, the host rebooted): a new connection and mount, the
// same command, variables and folder there. It returns the command line
// of its new pane and the undo, as Start. The team's files were never on
// the host, so the teammate finds its inbox as the lead kept it. It
// refuses while the teammate's old connection still serves its mount.
// hold is Spawn.Hold: the caller opens the pane next, and releases the
// host's start lock once it has.
func Reconnect(ctx context.Context, getenv func(string) string, root, team, member, exe string, say io.Writer, hold func(release func())) (argv []string, undo func(), err error) {
	if err := checkMember(member); err != nil {
		return nil, nil, err
	}
	dir := StateDir(getenv, root, team)
	path := statePath(dir, member)
	st, err := readState(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s was not started on another host from this machine (spawn-pane --host): nothing to reconnect", member)
	}
	if err != nil {
		return nil, nil, err
	}
	if st.Teammate == nil || len(st.Teammate.Argv) == 0 {
		return nil, nil, fmt.Errorf("%s was started on %s by an older paneteam that did not keep its command: kill-pane it and spawn-pane --host again", member, st.Host)
	}
	if ownProcess(st.ServerPID) || ownProcess(st.SSHPID) {
		return nil, nil, fmt.Errorf("%s is still connected to %s (its mount is served by process %d): reconnect is for a teammate whose connection ended; kill-pane it to start over", member, st.Host, st.ServerPID)
	}
	// The old record goes while Start runs (Start keeps or closes the
	// connection by whether any record is left), and comes back when the
	// teammate could not be started again: it is still a member whose
	// connection ended, for the next reconnect, kill-pane and status.
	// Its processes are gone (checked above) and its mark is moot.
	if validUpMark(st.Up) {
		os.Remove(filepath.Join(root, "teams", team, st.Up))
	}
	old := st
	old.ServerPID, old.SSHPID, old.Up = 0, 0, ""
	keep := func() error {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		return writeState(path, old)
	}
	if err := os.Remove(path); err != nil {
		return nil, nil, fmt.Errorf("reconnect %s: %w", member, err)
	}
	t := st.Teammate
	argv, stop, err := Start(ctx, Spawn{Getenv: getenv, Host: st.Host, Root: root, Team: team, Member: member, Exe: exe,
		Argv: t.Argv, Env: t.Env, Cwd: t.Cwd, Claude: t.Claude, Unconfined: t.Unconfined, SSHFS: t.SSHFS, Say: say, Hold: hold})
	if err != nil {
		if kerr := keep(); kerr != nil {
			err = fmt.Errorf("%w (and keeping the record of %s failed: %v)", err, member, kerr)
		}
		return nil, nil, fmt.Errorf("reconnect %s on %s: %w", member, st.Host, err)
	}
	return argv, func() { stop(); keep() }, nil
}

// hostEnv is the teammate's environment on the host: the team is at its
// mount, and the host keeps its own Claude Code config folder.
func hostEnv(env []string, mount string) []string {
	return envlist.Set(envlist.Without(env, "CLAUDE_CONFIG_DIR"), "PANETEAM_ROOT", mount)
}

// checkCommand finds the teammate's program on the host before anything
// is mounted.
func (c *Client) checkCommand(ctx context.Context, prog, bin string) error {
	script := "PATH=" + Quote(bin) + ":$PATH; command -v " + Quote(prog) + " >/dev/null"
	_, err := c.Run(ctx, script, nil)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return fmt.Errorf("cannot run %s on %s: not found there (install it on the host or give its full path there)", prog, c.Host)
	}
	// The host could not be asked (sshd refused the session, the
	// connection went): that is the error, not a missing program.
	return fmt.Errorf("look for %s on %s: %w", prog, c.Host, err)
}

// Stop takes a remote teammate down on both machines: its mount on the
// host (once its pane's process has had a moment to clean up itself), the
// sftp-server and ssh session on the lead, and the team's connection when
// no other teammate of the team uses it.
func Stop(ctx context.Context, getenv func(string) string, root, team, member string) error {
	if err := checkMember(member); err != nil {
		return err
	}
	dir := StateDir(getenv, root, team)
	st, err := readState(statePath(dir, member))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	c := &Client{Host: st.Host, base: st.SSH, ControlPath: st.ControlPath}
	var errs []error
	if c.Connected(ctx) && !st.Shared {
		m := Quote(st.Mount)
		wait := "i=0; while [ -d " + m + " ] && [ $i -lt 50 ]; do i=$((i+1)); sleep 0.1; done; " + UnmountScript(st.Mount, st.ConfigDir)
		// The pane's session may still be ending as this starts: at sshd's
		// MaxSessions, a refused session is tried again for a moment.
		_, err := c.runAsSessionsFree(ctx, wait, 5*time.Second)
		if err != nil {
			errs = append(errs, fmt.Errorf("unmount the team on %s: %w", st.Host, err))
		}
	}
	for _, pid := range []int{st.ServerPID, st.SSHPID} {
		if ownProcess(pid) && !waitGone(pid, 2*time.Second) {
			syscallKill(pid)
			waitGone(pid, 2*time.Second)
		}
	}
	if validUpMark(st.Up) {
		os.Remove(filepath.Join(root, "teams", team, st.Up))
	}
	os.Remove(statePath(dir, member))
	os.Remove(filepath.Join(dir, member+".log"))
	if idle(dir) {
		errs = append(errs, closeIdle(ctx, c, dir))
		removeHidden(root, team)
		// The confined sftp-server makes teams/<team>/panes to cover it;
		// with no in-process teammate it stays empty: removed then.
		os.Remove(filepath.Join(root, "teams", team, "panes"))
	}
	return errors.Join(errs...)
}

// closeLockWait bounds how long closeIdle waits for a start under way.
const closeLockWait = 30 * time.Second

// closeIdle ends the team's connection to c's host once no teammate of
// the team is on a host, and removes the lead's state folder. It does so
// under the host's start lock, asking again once it holds it: a start
// under way on the connection keeps it.
func closeIdle(ctx context.Context, c *Client, dir string) error {
	// The teammate's state is gone already: this is the last chance to
	// end the connection, so it waits for a start under way even past
	// the caller's deadline, for a while. A start still holding the lock
	// then keeps the connection, and ends it itself if it fails.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeLockWait)
	defer cancel()
	lock, err := lockStart(lctx, c, io.Discard)
	if err != nil {
		return fmt.Errorf("close the connection to %s: %w", c.Host, err)
	}
	if !idle(dir) {
		lock.release()
		return nil
	}
	err = c.Close(ctx)
	lock.drop()
	sweepStartLocks(dir)
	os.Remove(dir)
	return err
}

// removeHidden removes the .fuse_hidden files a host's sshfs left in the
// team's folders: libfuse renames a file to .fuse_hidden… when it is
// renamed over or removed while a process on the same mount holds it
// open, and deletes it when that process lets go, unless the connection
// ended first. Once no teammate of the team is on a host, none is in use.
func removeHidden(root, team string) {
	for _, kind := range []string{"teams", "tasks"} {
		filepath.WalkDir(filepath.Join(root, kind, team), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".fuse_hidden") {
				os.Remove(p)
			}
			return nil
		})
	}
}

// Host is the host a member runs on, from the lead's own record ("" for
// a local member).
func Host(getenv func(string) string, root, team, member string) string {
	return hostIn(StateDir(getenv, root, team), member)
}

// Hosts is Host for many members of one team: the records' folder is
// found once, and when it does not exist (no teammate of the team was
// ever started on a host, the usual case) no member's record is looked
// for. The status line asks this of every member every few seconds.
func Hosts(getenv func(string) string, root, team string) func(member string) string {
	dir := StateDir(getenv, root, team)
	if _, err := os.Lstat(dir); err != nil {
		return func(string) string { return "" }
	}
	return func(member string) string { return hostIn(dir, member) }
}

func hostIn(dir, member string) string {
	if checkMember(member) != nil {
		return ""
	}
	st, err := readState(statePath(dir, member))
	if err != nil {
		return ""
	}
	return st.Host
}

// idle: no teammate of the team is on a host any more.
func idle(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	return len(m) == 0
}

// ownProcess reports whether pid is still one of the processes Mount
// started (an sftp-server or ssh), not a reused pid.
func ownProcess(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return alive(pid) // no /proc: trust the pid
	}
	cmd := string(b)
	return strings.Contains(cmd, "sftp") || strings.Contains(cmd, "ssh")
}

func writeState(path string, st State) error {
	b, _ := json.Marshal(st)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readState(path string) (State, error) {
	var st State
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}
