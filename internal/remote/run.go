package remote

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/sys/flockwait"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// Job is what the host's paneteam (`paneteam remote run`) is told to do
// for one teammate: wait for its mount, run its command there, stop it
// the moment the mount is lost, and leave nothing behind.
type Job struct {
	Team   string `json:"team"`
	Member string `json:"member"`
	// Mount is the teammate's own mount of the team's folders.
	Mount string `json:"mount"`
	// Shared: Mount is the team root on a file system the lead shares
	// with this host (NFS), not a mount of paneteam's: it is watched but
	// never unmounted or removed.
	Shared bool `json:"shared,omitempty"`
	// ConfigDir is the host's Claude Code config folder; with Link, its
	// teams/<team> and tasks/<team> are links into Mount, so a Claude
	// Code teammate finds its team beside the host's own login.
	ConfigDir string   `json:"configDir,omitempty"`
	Link      bool     `json:"link,omitempty"`
	Argv      []string `json:"argv"`
	Env       []string `json:"env,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	// Bin is the folder holding paneteam on the host, put first on PATH.
	Bin string `json:"bin,omitempty"`
	// Grace is how long an access to the mount may hang before the
	// connection counts as lost (the lead's keepalive time).
	Grace time.Duration `json:"grace"`
	// Up names the mark Run leaves in the team's folder as it starts:
	// the lead holds the host's start lock until it sees it.
	Up string `json:"up,omitempty"`
}

// Encode makes the job one word of base64url text.
func (j Job) Encode() string {
	b, _ := json.Marshal(j)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeJob reads Encode's word.
func DecodeJob(s string) (Job, error) {
	var j Job
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &j)
	}
	if err != nil {
		return j, fmt.Errorf("read the teammate's job: %w", err)
	}
	if len(j.Argv) == 0 || j.Mount == "" || j.Team == "" {
		return j, errors.New("read the teammate's job: no command, team or mount")
	}
	if j.Up != "" && !validUpMark(j.Up) {
		return j, fmt.Errorf("read the teammate's job: %q is not a mark's name", j.Up)
	}
	return j, nil
}

// ErrLost says the connection to the lead was lost and the teammate was
// stopped.
var ErrLost = errors.New("the connection to the lead is lost")

// Run does the job on the host; it returns the command's error, or
// ErrLost. Messages for the person go to say (the pane).
func Run(ctx context.Context, j Job, say io.Writer) error {
	if j.Grace <= 0 {
		j.Grace = Keepalive * KeepaliveCount
	}
	team := filepath.Join(j.Mount, "teams", j.Team)
	if err := waitFor(team, 15*time.Second); err != nil {
		return fmt.Errorf("the team's folder did not appear at %s: %w", team, err)
	}
	if j.Up != "" {
		// This session is open: the lead may let the next start in.
		if f, err := safefs.OpenFile(filepath.Join(team, j.Up), os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	}
	dev, err := devOf(j.Mount)
	if err != nil {
		return err
	}
	var unlink func()
	if j.Link {
		if unlink, err = link(j); err != nil {
			cleanup(j, nil)
			return err
		}
	}
	gone := false
	defer func() {
		if gone && !j.Shared {
			endSSHFS(j.Mount)
		}
		cleanup(j, unlink)
	}()

	cmd := exec.Command(j.Argv[0], j.Argv[1:]...)
	if j.Bin != "" && !strings.Contains(j.Argv[0], "/") {
		if p, err := program.Find(j.Argv[0], j.Bin+string(os.PathListSeparator)+os.Getenv("PATH")); err == nil {
			cmd.Path, cmd.Err = p, nil
		}
	}
	cmd.Env = append(os.Environ(), j.Env...)
	if j.Bin != "" {
		cmd.Env = append(cmd.Env, "PATH="+j.Bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	cmd.Dir = j.Cwd
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = foreground()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s on this host: %w", j.Argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case s := <-sigs:
			if s == syscall.SIGINT || s == syscall.SIGQUIT {
				continue // the terminal's, and the teammate's to handle
			}
			stop(cmd, done)
			return fmt.Errorf("stopped by %s", s)
		case <-tick.C:
			if why := lost(j.Mount, team, dev, j.Grace); why != "" {
				fmt.Fprintf(say, "\r\npaneteam: %s (%s): stopping %s so it writes nothing to this host's own disk\r\n", ErrLost, why, j.Member)
				gone = true
				if !j.Shared {
					abort(dev)
					endSSHFS(j.Mount)
				}
				stop(cmd, done)
				return ErrLost
			}
		}
	}
}

// lost says why the mount no longer carries the team, "" while it does:
// unmounted (the folder is this host's own again), failing, or hanging
// longer than grace (a frozen connection).
func lost(mount, team string, dev uint64, grace time.Duration) string {
	res := make(chan string, 1)
	go func() {
		d, err := devOf(mount)
		switch {
		case err != nil:
			res <- err.Error()
		case d != dev:
			res <- "the mount is gone"
		default:
			if _, err := os.Stat(team); err != nil {
				res <- err.Error()
			} else {
				res <- ""
			}
		}
	}()
	select {
	case why := <-res:
		return why
	case <-time.After(grace):
		return fmt.Sprintf("the mount has not answered for %s", grace)
	}
}

// stop ends the teammate's process group: TERM, then KILL after 3 s.
func stop(cmd *exec.Cmd, done chan error) {
	pid := cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGTERM)
	syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		cmd.Process.Kill()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	syscall.Kill(-pid, syscall.SIGKILL)
}

// abort ends a FUSE connection that hangs, so nothing waits on it any
// longer, where the fusectl file system is mounted and writable (root).
func abort(dev uint64) {
	minor := (dev & 0xff) | ((dev >> 12) & 0xfff00)
	os.WriteFile(fmt.Sprintf("/sys/fs/fuse/connections/%d/abort", minor), []byte("1"), 0)
}

// endSSHFS ends the sshfs serving mount (found by its command line among
// this user's processes): when a frozen connection leaves it waiting on
// the lead, its end is what fails every access still waiting on the mount
// (the kernel aborts a FUSE connection whose server is gone), so the
// teammate's processes can die and the mount be detached.
func endSSHFS(mount string) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid := 0
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid <= 0 {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) < 2 || filepath.Base(args[0]) != "sshfs" || args[len(args)-1] != mount {
			continue
		}
		syscall.Kill(pid, syscall.SIGTERM)
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) && syscall.Kill(pid, 0) == nil {
			time.Sleep(20 * time.Millisecond)
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// link makes the host's <config>/teams/<team> and tasks/<team> links
// into the mount. A real folder there (a team of the host's own) or a
// link into another live mount is refused.
func link(j Job) (func(), error) {
	unlock, err := lockLinks(j)
	if err != nil {
		return nil, err
	}
	var made []string
	undo := func() {
		for _, p := range made {
			if t, err := os.Readlink(p); err == nil && strings.HasPrefix(t, j.Mount+"/") {
				os.Remove(p)
			}
		}
		unlock()
	}
	for _, kind := range []string{"teams", "tasks"} {
		p := filepath.Join(j.ConfigDir, kind, j.Team)
		target := filepath.Join(j.Mount, kind, j.Team)
		if target == p {
			continue // the shared team root is this host's config folder
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			undo()
			return nil, err
		}
		if old, err := os.Readlink(p); err == nil {
			if _, serr := os.Stat(old); serr == nil && old != target {
				undo()
				return nil, fmt.Errorf("%s already leads to another teammate's mount (%s): one Claude Code teammate per team per host for now", p, old)
			}
			os.Remove(p)
		} else if _, err := os.Lstat(p); err == nil {
			undo()
			return nil, fmt.Errorf("%s is a folder of this host's own: this host has a team of the same name; remove or rename it", p)
		}
		if err := os.Symlink(target, p); err != nil {
			undo()
			return nil, err
		}
		made = append(made, p)
	}
	return undo, nil
}

// lockLinks takes the host's lock on the team's links in its config
// folder, held while the teammate runs (a flock: it ends with the
// process, so a crash leaves nothing held). Two teammates of a team on
// one host would share one teams/<team> link: on a shared folder both
// links lead to the same place, so only this lock tells that the link
// is in use, and the first teammate to end would take it from the other.
func lockLinks(j Job) (unlock func(), err error) {
	dir := filepath.Join(j.ConfigDir, "paneteam")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock the team's links on this host: %w", err)
	}
	path := filepath.Join(dir, "links-"+j.Team+".lock")
	for {
		fl := flock.New(path, flock.SetPermissions(0o600))
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock the team's links on this host: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("%s is in use by another Claude Code teammate of %s on this host: one Claude Code teammate per team per host for now", filepath.Join(j.ConfigDir, "teams", j.Team), j.Team)
		}
		if !flockwait.InPlace(fl) {
			fl.Unlock() // removed as its holder ended: lock its successor
			continue
		}
		return func() {
			os.Remove(path)
			fl.Unlock()
			os.Remove(dir) // only when empty: nothing else of paneteam's here
		}, nil
	}
}

// cleanup unlinks, unmounts (lazily when busy) and removes the mount's
// folder and its now empty parents up to the config folder.
func cleanup(j Job, unlink func()) {
	if unlink != nil {
		unlink()
	}
	if j.Shared {
		return
	}
	// Detached first without looking (a look at a hanging mount hangs),
	// then the folder removed.
	exec.Command("fusermount3", "-uz", j.Mount).Run()
	exec.Command("fusermount", "-uz", j.Mount).Run()
	os.Remove(j.Mount)
	for _, d := range mountParents(j.Mount, j.ConfigDir) {
		if os.Remove(d) != nil {
			break
		}
	}
}

func waitFor(path string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		_, err := os.Stat(path)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func devOf(path string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("look at %s: %w", path, err)
	}
	return uint64(st.Dev), nil
}
