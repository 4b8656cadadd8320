//go:build !linux

package remote

import (
	"errors"
	"os/exec"
)

// CanConfine says whether this platform confines the lead's sftp-server
// to the team's folders: only Linux does (a mount namespace).
const CanConfine = false

// SFTPServers are where OpenSSH's sftp-server is found.
var SFTPServers = []string{"/usr/libexec/sftp-server", "/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server"}

// ConfinedCommand is not available here; Mount serves unconfined only
// when asked to explicitly.
func ConfinedCommand(exe, root, team string) *exec.Cmd { return nil }

// ServeConfined is Linux only.
func ServeConfined(root, team string) error {
	return errors.New("the sftp server can be confined to the team's folders on Linux only")
}
