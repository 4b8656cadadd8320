package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// shareFile is the prefix of the token files sameFolders writes.
const shareFile = ".paneteam-share-"

// sameFolders tells whether the host sees the team's folders (teams/<team>
// and tasks/<team> of root) at the same paths as the lead, as it does
// when both mount one shared file system (NFS) there, and can write them.
// Equal paths prove nothing (a host may have a folder of its own at that
// path), so the lead writes a file of random name and content into each
// folder; the host must read back that content through its own path and
// remove the file, and the lead must then find it gone. Only the folder
// both sides really share passes both ways. ok is false with why "" when
// the host has no such folder (nothing to say), or with why saying what
// differed.
func (c *Client) sameFolders(ctx context.Context, root, team string) (ok bool, why string, err error) {
	var paths, tokens []string
	defer func() {
		for _, p := range paths {
			os.Remove(p)
		}
	}()
	for _, kind := range []string{"teams", "tasks"} {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return false, "", err
		}
		tok := hex.EncodeToString(b)
		// The folder may not be made yet (tasks/<team> before the first
		// task); the confined sftp-server would make it as well.
		dir := filepath.Join(root, kind, team)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, "", fmt.Errorf("make the team's folder %s: %w", dir, err)
		}
		p := filepath.Join(dir, shareFile+tok[:12])
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return false, "", fmt.Errorf("write a test file into the team's folder: %w", err)
		}
		_, werr := f.WriteString(tok)
		if cerr := f.Close(); werr != nil || cerr != nil {
			return false, "", fmt.Errorf("write a test file into the team's folder: %w", errors.Join(werr, cerr))
		}
		paths, tokens = append(paths, p), append(tokens, tok)
	}
	// For each file: "none" (no such folder there), or what the host read
	// and whether it could remove the file.
	var script strings.Builder
	for _, p := range paths {
		d, f := Quote(filepath.Dir(p)), Quote(p)
		script.WriteString("if [ ! -d " + d + " ]; then echo none; else printf '%s ' \"$(cat " + f + " 2>/dev/null)\"; if rm -f " + f + " 2>/dev/null; then echo rm; else echo keep; fi; fi\n")
	}
	out, err := c.Run(ctx, script.String(), nil)
	if err != nil {
		return false, "", fmt.Errorf("look for the team's folders on %s: %w", c.Host, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(paths) {
		return false, "", fmt.Errorf("look for the team's folders on %s: unexpected answer %q", c.Host, out)
	}
	for i, line := range lines {
		dir := filepath.Dir(paths[i])
		if line == "none" {
			if i == 0 {
				return false, "", nil
			}
			return false, fmt.Sprintf("%s has %s but not %s", c.Host, filepath.Dir(paths[0]), dir), nil
		}
		got, removed, _ := strings.Cut(line, " ")
		if got != tokens[i] {
			return false, fmt.Sprintf("%s has a folder at %s, but not this machine's (a test file written here was not there)", c.Host, dir), nil
		}
		if removed != "rm" || !gone(paths[i]) {
			return false, fmt.Sprintf("%s sees %s but cannot change it (a test file it removed is still here)", c.Host, dir), nil
		}
	}
	return true, "", nil
}

// gone reports whether nothing is at path any more. It opens the file
// rather than looking at it: an NFS client may answer a look (stat) from
// its caches for a few seconds, and still show a file another machine
// removed, where an open checks the file with the server (close-to-open
// consistency, nfs(5)).
func gone(path string) bool {
	f, err := os.Open(path)
	if err == nil {
		f.Close()
	}
	return errors.Is(err, os.ErrNotExist)
}
