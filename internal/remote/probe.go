package remote

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// MaxSkew is the largest clock difference between the lead and a host
// that paneteam accepts. Lock folders are judged stale by comparing their
// mtime (set by the clock of whoever refreshed them) with the reader's
// clock, over a 10 s window (lockfile.DefaultStale): a skew near that
// window makes a held lock look abandoned, or an abandoned one live.
const MaxSkew = 3 * time.Second

// Facts are what paneteam learns of a host before using it.
type Facts struct {
	OS, Arch string
	Home     string
	// ConfigDir is the host's Claude Code config folder
	// (${CLAUDE_CONFIG_DIR:-$HOME/.claude}).
	ConfigDir string
	SSHFS     string // sshfs's path, "" when missing
	// Fuse is "ok", "denied" (no read/write access to /dev/fuse) or
	// "missing".
	Fuse string
	// Skew is the host's clock minus the lead's, to about a second.
	Skew time.Duration
}

const probeScript = `printf 'os=%s\n' "$(uname -s)"
printf 'arch=%s\n' "$(uname -m)"
printf 'home=%s\n' "$HOME"
printf 'cfg=%s\n' "${CLAUDE_CONFIG_DIR:-$HOME/.claude}"
printf 'sshfs=%s\n' "$(command -v sshfs)"
if [ -r /dev/fuse ] && [ -w /dev/fuse ]; then echo fuse=ok; elif [ -e /dev/fuse ]; then echo fuse=denied; else echo fuse=missing; fi
printf 'now=%s\n' "$(date +%s)"
`

// Probe runs one short script on the host (over the master) and checks
// what a teammate there needs: sshfs, access to /dev/fuse, and a clock
// close to the lead's.
func (c *Client) Probe(ctx context.Context) (Facts, error) {
	before := time.Now()
	out, err := c.Run(ctx, probeScript, nil)
	after := time.Now()
	if err != nil {
		return Facts{}, fmt.Errorf("look at %s: %w", c.Host, err)
	}
	f, now := parseProbe(out)
	f.Skew = skew(now, before, after)
	return f, f.check(c.Host)
}

func parseProbe(out []byte) (Facts, int64) {
	var f Facts
	var now int64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "os":
			f.OS = v
		case "arch":
			f.Arch = v
		case "home":
			f.Home = v
		case "cfg":
			f.ConfigDir = v
		case "sshfs":
			f.SSHFS = v
		case "fuse":
			f.Fuse = v
		case "now":
			now, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return f, now
}

// skew is how far the host's clock (whole seconds, read between before
// and after on the lead's clock) is outside that window: 0 when it could
// be the same clock.
func skew(now int64, before, after time.Time) time.Duration {
	remote := time.Unix(now, 0)
	switch {
	case remote.Add(time.Second).Before(before):
		return remote.Add(time.Second).Sub(before)
	case remote.After(after):
		return remote.Sub(after)
	}
	return 0
}

func (f Facts) check(host string) error {
	switch {
	case f.OS != "Linux":
		return fmt.Errorf("%s runs %q: paneteam runs teammates on Linux hosts only (the team is mounted there with sshfs and FUSE)", host, f.OS)
	case f.SSHFS == "":
		return fmt.Errorf("%s has no sshfs: install it there (Debian and Ubuntu: sudo apt-get install sshfs; Fedora: sudo dnf install fuse-sshfs)", host)
	case f.Fuse == "missing":
		return fmt.Errorf("%s has no /dev/fuse: load the fuse module there (sudo modprobe fuse), or in a container start it with --device /dev/fuse", host)
	case f.Fuse == "denied":
		return fmt.Errorf("the user paneteam logs in as on %s cannot open /dev/fuse: give it read and write access there (sudo chmod 0666 /dev/fuse, or add the user to the group that owns it)", host)
	case f.Skew > MaxSkew || f.Skew < -MaxSkew:
		dir := "ahead of"
		if f.Skew < 0 {
			dir = "behind"
		}
		return fmt.Errorf("the clock of %s is %s %s this machine's: stale-lock detection compares times across the two machines; synchronise the clocks (sudo timedatectl set-ntp true on both)", host, f.Skew.Abs().Round(time.Second), dir)
	case f.Home == "" || f.ConfigDir == "" || !strings.HasPrefix(f.ConfigDir, "/"):
		return fmt.Errorf("%s did not say where its home folder is (HOME=%q)", host, f.Home)
	}
	return nil
}

// Install makes sure the host has this very paneteam (exe) and returns
// its path there: ~/.cache/paneteam/bin/<hash of the binary>/paneteam
// (that folder goes first on the teammate's PATH there). It
// is copied over the connection once per version, and said so on say.
func (c *Client) Install(ctx context.Context, f Facts, exe string, say io.Writer) (string, error) {
	data, err := os.ReadFile(exe)
	if err != nil {
		return "", fmt.Errorf("read paneteam's own binary to copy it to %s: %w", c.Host, err)
	}
	sum := sha256.Sum256(data)
	path := fmt.Sprintf("%s/.cache/paneteam/bin/%x/paneteam", f.Home, sum[:8])
	if out, err := c.Run(ctx, "test -x "+Quote(path)+" && echo yes || true", nil); err != nil {
		return "", fmt.Errorf("look for paneteam on %s: %w", c.Host, err)
	} else if strings.TrimSpace(string(out)) == "yes" {
		return path, nil
	}
	if !sameKind(f) {
		return "", fmt.Errorf("%s is %s %s and this paneteam is built for %s/%s: put a paneteam built for the host at %s:%s (GOOS=linux GOARCH=... go build ./cmd/paneteam)", c.Host, f.OS, f.Arch, runtime.GOOS, runtime.GOARCH, c.Host, path)
	}
	fmt.Fprintf(say, "paneteam: copying paneteam (%.1f MB) to %s:%s, once for this version\n", float64(len(data))/(1<<20), c.Host, path)
	script := "set -e; umask 077; d=$(dirname " + Quote(path) + "); mkdir -p \"$d\"; t=" + Quote(path) + ".tmp.$$; cat > \"$t\"; chmod 0755 \"$t\"; mv -f \"$t\" " + Quote(path)
	if _, err := c.Run(ctx, script, data); err != nil {
		return "", fmt.Errorf("copy paneteam to %s: %w", c.Host, err)
	}
	return path, nil
}

func sameKind(f Facts) bool {
	arch := map[string]string{"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i686": "386", "armv7l": "arm"}[f.Arch]
	return f.OS == "Linux" && runtime.GOOS == "linux" && arch == runtime.GOARCH
}
