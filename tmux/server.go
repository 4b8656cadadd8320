// Package tmux is paneteam's client of the tmux program. One Server value
// names one tmux server by its socket and adds that socket to every call,
// so nothing ever reaches the wrong server (in particular the user's
// default one) by accident.
package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Sentinel errors mapped from tmux's stderr in one place (see classify).
var (
	ErrNoServer     = errors.New("tmux server is not running")
	ErrPaneNotFound = errors.New("tmux pane not found")
	ErrNotInstalled = errors.New("tmux is not installed")
	ErrNoSession    = errors.New("tmux session not found")
)

// Server is one tmux server. Exactly one of Socket (-S, a path) and Name
// (-L, a name under tmux's socket folder) is set.
type Server struct {
	Socket string // -S path
	Name   string // -L name
	// Config is passed with -f when the server is started by paneteam;
	// tests use /dev/null so the user's ~/.tmux.conf plays no part.
	Config string
	// Bin is the tmux binary (default "tmux").
	Bin string
	// TmpDir, when set, is TMUX_TMPDIR for the tmux client: the folder
	// under which a -L name's socket lives (tmux(1) -L). Tests point it at
	// a temporary folder.
	TmpDir string
}

// FromTMUX returns the server named by a $TMUX value
// ("socket_path,server_pid,session_index"), the one a process inside tmux
// belongs to.
func FromTMUX(tmuxVar string) (Server, error) {
	path, _, _ := strings.Cut(tmuxVar, ",")
	if path == "" {
		return Server{}, fmt.Errorf("TMUX=%q does not name a tmux socket", tmuxVar)
	}
	return Server{Socket: path}, nil
}

func (s Server) bin() string {
	if s.Bin != "" {
		return s.Bin
	}
	return "tmux"
}

// Args returns the global arguments that select this server.
func (s Server) Args() []string {
	var a []string
	switch {
	case s.Socket != "":
		a = append(a, "-S", s.Socket)
	case s.Name != "":
		a = append(a, "-L", s.Name)
	}
	if s.Config != "" {
		a = append(a, "-f", s.Config)
	}
	return a
}

// SocketPath is the path of the server's socket. For a -L name it is
// worked out as tmux does (tmux(1) -L and TMUX_TMPDIR): the real path of
// TMUX_TMPDIR (else /tmp), then tmux-<uid>/<name>.
func (s Server) SocketPath() (string, error) {
	if s.Socket != "" {
		return s.Socket, nil
	}
	if s.Name == "" {
		return "", errors.New("no tmux socket was chosen")
	}
	dir := s.TmpDir
	if dir == "" {
		dir = os.Getenv("TMUX_TMPDIR")
	}
	if dir == "" {
		dir = "/tmp"
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("tmux socket folder: %w", err)
	}
	return filepath.Join(real, "tmux-"+strconv.Itoa(os.Getuid()), s.Name), nil
}

// String names the server for messages.
func (s Server) String() string {
	if s.Socket != "" {
		return "tmux server at " + s.Socket
	}
	return "tmux server -L " + s.Name
}

// Run runs one tmux command on this server and returns its trimmed stdout.
// A Server with neither Socket nor Name refuses to run: that would be the
// user's default server.
func (s Server) Run(ctx context.Context, args ...string) (string, error) {
	return s.run(ctx, args, escapeAll(args))
}

// RunSeq runs several tmux commands in one tmux call (one client, one
// round trip to the server), in order; tmux stops at the first that fails.
func (s Server) RunSeq(ctx context.Context, cmds ...[]string) (string, error) {
	var shown, argv []string
	for i, c := range cmds {
		if i > 0 {
			// The one argument that must keep its meaning as a separator.
			shown, argv = append(shown, ";"), append(argv, ";")
		}
		shown, argv = append(shown, c...), append(argv, escapeAll(c)...)
	}
	return s.run(ctx, shown, argv)
}

func escapeAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = escapeArg(a)
	}
	return out
}

// run executes tmux with argv (already escaped); shown is what errors name.
func (s Server) run(ctx context.Context, shown, argv []string) (string, error) {
	if s.Socket == "" && s.Name == "" {
		return "", fmt.Errorf("tmux %s: refusing to talk to the default tmux server; no socket was chosen", strings.Join(shown, " "))
	}
	// -u: what tmux prints must not depend on the caller's locale (see
	// fieldSep); the bytes of titles and names come back as they are.
	var env []string
	if s.TmpDir != "" {
		env = append(os.Environ(), "TMUX_TMPDIR="+s.TmpDir)
	}
	full := append(append([]string{s.bin(), "-u"}, s.Args()...), argv...)
	stdout, stderr, err := runProcess(ctx, s.bin(), full, env)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err() // tmux was killed because the caller gave up
		} else {
			err = classify(err, string(stderr))
		}
		return "", &Error{Args: shown, Stderr: strings.TrimSpace(string(stderr)), Err: err}
	}
	return strings.TrimRight(string(stdout), "\n"), nil
}

// Error is a failed tmux command: the subcommand and its args, tmux's
// stderr, and the underlying (possibly sentinel) error.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	// Formats hold newlines (encodeField); keep the message one line.
	args := strings.ReplaceAll(strings.Join(e.Args, " "), "\n", `\n`)
	return fmt.Sprintf("tmux %s: %s", args, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// classify maps tmux's stderr texts to sentinel errors.
func classify(err error, stderr string) error {
	var execErr *exec.Error
	if errors.As(err, &execErr) {
		return ErrNotInstalled
	}
	switch {
	case strings.Contains(stderr, "no server running"),
		strings.Contains(stderr, "error connecting to"),
		strings.Contains(stderr, "server exited unexpectedly"):
		return ErrNoServer
	case strings.Contains(stderr, "can't find pane"),
		strings.Contains(stderr, "can't find window"):
		return ErrPaneNotFound
	case strings.Contains(stderr, "can't find session"),
		// A server whose last session has just closed, on its way out.
		strings.Contains(stderr, "no current target"):
		return ErrNoSession
	}
	return err
}

// PanePID returns the pid of the process running in a pane.
func (s Server) PanePID(ctx context.Context, pane string) (string, error) {
	return s.Run(ctx, "display-message", "-p", "-t", pane, "#{pane_pid}")
}
