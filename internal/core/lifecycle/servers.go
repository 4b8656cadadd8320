package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/tmux"
)

// hiddenSession is the session where paneteam's tmux backend keeps hidden
// teammates (tmux.HiddenSession); its first window holds an untagged
// placeholder pane, paneteam's own.
const hiddenSession = "paneteam-hidden"

// Server is a tmux server that was (or would be) stopped, or left.
type Server struct {
	Socket  string `json:"socket"`
	Stopped bool   `json:"stopped"`
	// Why says why it was stopped, or why it was left running.
	Why string `json:"why"`
}

// privateName matches the private servers paneteam and Claude Code start
// for a lead process: "tmux -L paneteam-<pid>-<team>-<hash>" (one per team,
// backend.PrivateServerName), "paneteam-<pid>" (releases before it) and
// "tmux -L claude-swarm-<pid>".
var privateName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:paneteam-([0-9]+)(?:-[a-z0-9-]*-[0-9a-f]{8})?|claude-swarm-([0-9]+))$`)
})

// privatePID is the lead process a private server's name gives, false for
// a name that is no private server's.
func privatePID(name string) (int, bool) {
	m := privateName().FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	pid, err := strconv.Atoi(m[1] + m[2]) // one of the two is empty
	return pid, err == nil
}

// SocketDir is the folder where tmux keeps this user's -L sockets:
// $TMUX_TMPDIR (else /tmp) + "/tmux-<uid>" (tmux(1), -L).
func SocketDir(getenv func(string) string) string {
	base := getenv("TMUX_TMPDIR")
	if base == "" {
		base = "/tmp"
	}
	// tmux resolves the folder's real path (macOS: /tmp is /private/tmp).
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	return filepath.Join(base, fmt.Sprintf("tmux-%d", os.Getuid()))
}

// checkSocketDir refuses a tmux socket folder tmux itself would refuse
// (tmux(1) checks it with lstat: a directory, the user's own; tmux also
// wants it closed to others, where only their writing matters here): a link planted at /tmp/tmux-<uid> before the user's first tmux,
// or a folder others can write, would have cleanup stop servers and
// remove files wherever it leads. A folder that does not exist is fine:
// there is nothing to scan.
func checkSocketDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("tmux socket folder: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("tmux socket folder %s is a symbolic link: left unscanned (tmux refuses it too); remove it if you did not make it", dir)
	case !fi.IsDir():
		return fmt.Errorf("tmux socket folder %s is not a directory: left unscanned", dir)
	case !ownedByMe(fi) || fi.Mode().Perm()&0o002 != 0:
		return fmt.Errorf("tmux socket folder %s is not yours, or others may write it (mode %v): left unscanned, as tmux refuses it", dir, fi.Mode().Perm())
	}
	return nil
}

// stopIfEmpty stops the tmux server at socket once no pane is left but
// those ours says paneteam may close (by the agent id in tmux.AgentOption)
// and the hidden-session placeholder: any other pane is someone else's,
// and keeps the server up.
func stopIfEmpty(ctx context.Context, socket string, ours func(agent string) bool, why string, dryRun bool) *Server {
	s := &Server{Socket: socket}
	srv := tmux.Server{Socket: socket}
	panes, err := srv.AllPanes(ctx)
	if errors.Is(err, tmux.ErrNoServer) {
		// It exited with its last session; its socket file stays behind.
		s.Stopped, s.Why = true, "no longer running"
		if !dryRun {
			if err := removeLeftovers(socket); err != nil {
				s.Stopped, s.Why = false, fmt.Sprintf("tmux server %s has exited but its socket was not removed: %v", socket, err)
			}
		}
		return s
	}
	if errors.Is(err, tmux.ErrNoSession) {
		// Its last session has just closed and it is on its way out:
		// no pane is left, someone else's or ours.
		panes, err = nil, nil
	}
	if err != nil {
		s.Why = fmt.Sprintf("tmux server %s left running: %v", socket, err)
		return s
	}
	var foreign []string
	for _, p := range panes {
		if !ours(p.Agent) && !(p.Agent == "" && p.Session == hiddenSession) {
			foreign = append(foreign, p.ID)
		}
	}
	if len(foreign) > 0 {
		s.Why = fmt.Sprintf("tmux server %s left running: panes %s were not made by paneteam for it", socket, strings.Join(foreign, " "))
		return s
	}
	return killServer(ctx, s, why, dryRun)
}

// anyAgent accepts every pane paneteam made: on a server named for a gone
// lead, every team is that lead's, and gone too.
func anyAgent(agent string) bool { return agent != "" }

// killServer stops the server at s.Socket and removes its socket and
// pane lock.
func killServer(ctx context.Context, s *Server, why string, dryRun bool) *Server {
	s.Why = why
	if dryRun {
		s.Stopped = true
		return s
	}
	if err := (tmux.Server{Socket: s.Socket}).Stop(ctx); err != nil {
		s.Why = fmt.Sprintf("could not stop tmux server %s: %v", s.Socket, err)
		return s
	}
	s.Stopped = true
	return s
}

// removeLeftovers removes what a stopped server leaves: its socket file
// (tmux 3.3 does not remove it) and paneteam's pane lock beside it.
func removeLeftovers(socket string) error {
	return tmux.Server{Socket: socket}.RemoveLeftovers()
}

// scanServers finds the private servers in dir whose lead process is gone:
// named for a lead's pid (privateName), and either that pid is dead
// or the process that has it now started after the server did (pids are
// reused; a server is started by its lead, so never before it).
func scanServers(ctx context.Context, dir string, olderThan time.Duration, now time.Time) ([]*Server, error) {
	if dir == "" { // refused by checkSocketDir
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read tmux socket folder: %w", err)
	}
	var out []*Server
	for _, e := range entries {
		pid, ok := privatePID(e.Name())
		if !ok || e.Type()&fs.ModeSocket == 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !ownedByMe(fi) || (olderThan > 0 && now.Sub(fi.ModTime()) < olderThan) {
			continue
		}
		if why := leadGone(ctx, path, pid); why != "" {
			out = append(out, &Server{Socket: path, Why: why})
		}
	}
	return out, nil
}

// leadGone says why the lead process a server was named for is gone, or
// "" when it may be alive.
func leadGone(ctx context.Context, socket string, pid int) string {
	if !proc.Exists(pid) {
		return fmt.Sprintf("its lead process %d is gone", pid)
	}
	srvPID, err := tmux.Server{Socket: socket}.Run(ctx, "display-message", "-p", "#{pid}")
	if errors.Is(err, tmux.ErrNoServer) {
		return "" // a stale socket of a live lead: its business
	}
	if err != nil {
		return ""
	}
	n, _ := strconv.Atoi(strings.TrimSpace(srvPID))
	if startedAfter(pid, n) {
		return fmt.Sprintf("pid %d now belongs to a process started after the server", pid)
	}
	return ""
}

// startedAfter reports whether process a is known to have started after
// process b. Start times are compared only where they are numbers (clock
// ticks since boot on Linux); anything else is "not known".
func startedAfter(a, b int) bool {
	sa, err1 := proc.StartTime(a)
	sb, err2 := proc.StartTime(b)
	if err1 != nil || err2 != nil {
		return false
	}
	ta, err1 := strconv.ParseUint(sa, 10, 64)
	tb, err2 := strconv.ParseUint(sb, 10, 64)
	return err1 == nil && err2 == nil && ta > tb
}

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// sweepLocks removes paneteam's pane locks left beside tmux sockets whose
// server is gone (killed from outside paneteam, which would have removed
// them): tmux.StaleLocks, after the servers Reap stopped have gone.
func sweepLocks(ro ReapOptions, res *ReapResult) error {
	if ro.SocketDir == "" { // refused by checkSocketDir
		return nil
	}
	locks, err := tmux.StaleLocks(ro.SocketDir, ro.DryRun)
	res.StaleLocks = append([]string{}, locks...)
	return err
}
