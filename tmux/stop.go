package tmux

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Stop kills the server and removes what it leaves behind: its socket
// file (tmux 3.3 does not remove it, at kill-server nor when its last
// session ends) and paneteam's pane lock beside it. A server that is
// already gone is success.
func (s Server) Stop(ctx context.Context) error {
	_, err := s.Run(ctx, "kill-server")
	if err != nil && !errors.Is(err, ErrNoServer) {
		return fmt.Errorf("stop %s: %w", s, err)
	}
	return s.RemoveLeftovers()
}

// RemoveLeftovers removes the socket file of a server that no longer
// runs, and its pane lock (RemoveLock). A path that is not a socket is
// left alone with an error.
func (s Server) RemoveLeftovers() error {
	sock, err := s.SocketPath()
	if err != nil {
		return err
	}
	fi, err := os.Lstat(sock)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSocket == 0:
		return fmt.Errorf("%s is not a socket; left alone", sock)
	default:
		if err := os.Remove(sock); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return s.RemoveLock()
}
