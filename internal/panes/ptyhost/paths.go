// Package ptyhost runs a teammate where there is no tmux and no iTerm2: a
// small detached paneteam process (the host) runs the teammate's command
// under a pseudo-terminal, keeps its output in a size-bounded log in the
// team folder, and serves attach over a Unix socket. Start launches a host
// and returns once the command runs; Kill ends both; Alive checks the host.
package ptyhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// Paths are one in-process teammate's files.
type Paths struct {
	Log    string // output, newest part
	Prev   string // output before the last rotation
	State  string // the host's record (State, JSON)
	Socket string // attach socket
}

// maxSocketPath keeps socket paths under the sun_path limit (104 bytes on
// macOS, 108 on Linux) with room for the terminating NUL.
const maxSocketPath = 100

// PathsFor returns the files of member name in the team folder teamDir:
// teams/<team>/panes/<name>.{log,log.1,json,sock}. When the socket path
// would be too long for a Unix socket (deep temporary roots), the socket
// goes to a private folder under the system temp dir instead, named by a
// hash of the long path, so every paneteam process finds the same one.
func PathsFor(teamDir, name string) Paths {
	dir := filepath.Join(teamDir, "panes")
	base := filepath.Join(dir, team.SanitizePath(name))
	p := Paths{Log: base + ".log", Prev: base + ".log.1", State: base + ".json", Socket: base + ".sock"}
	if len(p.Socket) > maxSocketPath {
		sum := sha256.Sum256([]byte(p.Socket))
		p.Socket = filepath.Join(socketDir(), hex.EncodeToString(sum[:8])+".sock")
	}
	return p
}

// Dir is the folder holding the log and state.
func (p Paths) Dir() string { return filepath.Dir(p.Log) }

// ensureDir makes the folder of the log and state, panes/ in the team
// folder. The team folder may be a link (a remote host's leads to its
// mount); panes/ may not: teammates write the team folder, and a link
// there would have their output logged wherever it leads.
func (p Paths) ensureDir() error {
	if err := os.MkdirAll(filepath.Dir(p.Dir()), lockfile.DirPerm); err != nil {
		return err
	}
	return safefs.Mkdir(p.Dir(), lockfile.DirPerm)
}

func socketDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("paneteam-%d", os.Getuid()))
}

// ensureSocketDir creates the socket's folder 0700 and, for the shared temp
// location, checks that it is ours: another user must not be able to
// plant a socket there.
func ensureSocketDir(sock string) error {
	dir := filepath.Dir(sock)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 && dir == socketDir() {
		return fmt.Errorf("socket folder %s is not a private directory: remove it and retry", dir)
	}
	return ownedByMe(fi, dir)
}
