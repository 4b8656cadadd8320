package worktree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// exclude adds /.paneteam/ to the repository's info/exclude (never to a
// tracked file), once. The file and its folder are opened from the
// common git folder without following a link (safefs.OpenBelow): one
// planted at info/ or info/exclude would have paneteam append its line
// to whatever file it names.
func exclude(common string) error {
	const line = "/" + Dir + "/"
	rel := filepath.Join("info", "exclude")
	p := filepath.Join(common, rel)
	b, err := readBelow(common, rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", p, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == line {
			return nil
		}
	}
	f, err := safefs.OpenBelow(common, rel, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644, 0o755)
	if err != nil {
		return fmt.Errorf("update %s: %w", p, err)
	}
	prefix := ""
	if len(b) > 0 && !strings.HasSuffix(string(b), "\n") {
		prefix = "\n"
	}
	_, werr := fmt.Fprintf(f, "%s# paneteam teammates' worktrees\n%s\n", prefix, line)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("update %s: %w", p, werr)
	}
	return nil
}

func readBelow(root, rel string) ([]byte, error) {
	f, err := safefs.OpenBelow(root, rel, os.O_RDONLY, 0, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
