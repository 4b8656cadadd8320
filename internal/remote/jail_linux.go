//go:build linux

package remote

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// CanConfine says whether this platform confines the lead's sftp-server
// to the team's folders (Linux: a mount namespace).
const CanConfine = true

// SFTPServers are where OpenSSH's sftp-server is found on Linux.
var SFTPServers = []string{"/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/libexec/sftp-server", "/usr/lib/ssh/sftp-server"}

// DeniedRequests are the SFTP requests the confined server refuses: no
// symlink is ever made through the mount (one could lead a process on the
// lead that writes a team file in place, as Claude Code does, to any file
// of the lead's). Hard links stay: paneteam creates an inbox atomically by
// linking a complete temp file into place, and in the confined root a hard
// link cannot leave one team folder (teams/<team> and tasks/<team> and the
// read-only programs are separate mounts, and link(2) never crosses
// mounts), so it names nothing the host could not already write.
const DeniedRequests = "symlink"

// ConfinedCommand starts exe's hidden `remote sftp-jail` command (which
// calls ServeConfined) in a new mount namespace of its own; a lead that
// is not root gets a user namespace too, mapping itself to root there.
func ConfinedCommand(exe, root, team string) *exec.Cmd {
	cmd := exec.Command(exe, "remote", "sftp-jail", root, team)
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Setsid: true}
	if os.Geteuid() != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	return cmd
}

// ServeConfined runs in the namespace ConfinedCommand made: it builds a
// root holding only teams/<team> and tasks/<team> of the team root (read
// and write), sftp-server with the libraries it loads, /dev/null and a
// one-line passwd (read only), then becomes sftp-server there. It returns
// only on failure.
func ServeConfined(root, team string) error {
	server := ""
	for _, p := range SFTPServers {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			server = p
			break
		}
	}
	if server == "" {
		return fmt.Errorf("no sftp-server on this machine (looked in %v): install OpenSSH's (Debian: openssh-sftp-server)", SFTPServers)
	}
	libs, err := loadedFiles(server)
	if err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	// Held open across the tmpfs below, which may cover the team root.
	var shared []*os.File
	for _, kind := range []string{"teams", "tasks"} {
		dir := filepath.Join(root, kind, team)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", dir, err)
		}
		shared = append(shared, f)
	}
	// A tmpfs over /tmp in this namespace only: nothing is made on the
	// lead's disk, and nothing is left when the server ends.
	jail := "/tmp"
	if err := unix.Mount("tmpfs", jail, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m"); err != nil {
		return fmt.Errorf("mount the confined root: %w", err)
	}
	for i, kind := range []string{"teams", "tasks"} {
		if err := bind(fmt.Sprintf("/proc/self/fd/%d", shared[i].Fd()), filepath.Join(jail, kind, team), true, false); err != nil {
			return err
		}
	}
	// teams/<team>/panes holds the lead's in-process teammates' logs,
	// sockets and records (their pids, which the lead signals): the host
	// neither reads nor writes them. An empty read-only folder covers it.
	panes := filepath.Join(jail, "teams", team, "panes")
	if err := os.MkdirAll(panes, 0o700); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", panes, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0500,size=4k"); err != nil {
		return fmt.Errorf("hide the team's in-process panes from the host: %w", err)
	}
	for _, p := range append(libs, server, "/dev/null") {
		if err := bind(p, filepath.Join(jail, p), false, p != "/dev/null"); err != nil {
			return err
		}
	}
	uid := os.Getuid()
	if err := os.MkdirAll(filepath.Join(jail, "etc"), 0o755); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(jail, "etc/passwd"), fmt.Appendf(nil, "paneteam:x:%d:%d::/:/nonexistent\n", uid, os.Getgid()), 0o644)
	os.WriteFile(filepath.Join(jail, "etc/group"), fmt.Appendf(nil, "paneteam:x:%d:\n", os.Getgid()), 0o644)
	if err := unix.Mount("", jail, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("make the confined root read-only: %w", err)
	}
	if err := unix.Chroot(jail); err != nil {
		return fmt.Errorf("enter the confined root: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	// -u 077: files made through the mount are the owner's only.
	return unix.Exec(server, []string{"sftp-server", "-u", "077", "-P", DeniedRequests}, []string{"PATH=/nonexistent"})
}

// bind mounts src at dst (made as a folder or an empty file), read-only
// unless rw.
func bind(src, dst string, dir, ro bool) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if dir {
		if err := os.MkdirAll(dst, 0o700); err != nil {
			return err
		}
	} else if err := os.WriteFile(dst, nil, 0o644); err != nil {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s into the confined root: %w", src, err)
	}
	if ro {
		if err := unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
			return fmt.Errorf("make %s read-only: %w", dst, err)
		}
	}
	return nil
}

// libDirs are where the dynamic loader looks with no ld.so.cache.
var libDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// loadedFiles are the loader and the libraries prog needs, at the paths
// the loader opens them by.
func loadedFiles(prog string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	var walk func(path string, top bool) error
	walk = func(path string, top bool) error {
		interp, libs, err := elfDeps(path)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if top && interp != "" {
			seen[filepath.Base(interp)] = true
			out = append(out, interp)
		}
		for _, l := range libs {
			if seen[l] {
				continue
			}
			seen[l] = true
			found := ""
			for _, d := range libDirs {
				if _, err := os.Stat(filepath.Join(d, l)); err == nil {
					found = filepath.Join(d, l)
					break
				}
			}
			if found == "" {
				return fmt.Errorf("%s needs %s, not found in %v", prog, l, libDirs)
			}
			out = append(out, found)
			if err := walk(found, false); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(prog, true)
}
