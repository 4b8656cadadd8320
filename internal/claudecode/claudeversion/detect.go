package claudeversion

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// DetectTimeout bounds `claude --version`: a native build's first start
// can take a while; a binary that hangs must not hang a spawn.
const DetectTimeout = 10 * time.Second

// Detector finds the version of a Claude Code binary with `--version`,
// remembering the answer per binary (resolved path, size and mtime) in
// CacheFile, so a spawn pays for it only after an install or update.
type Detector struct {
	// CacheFile holds the answers; "" keeps none.
	CacheFile string
	// Env is the environment `--version` runs in (nil: this process's).
	Env []string
}

type cacheEntry struct {
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	Version string `json:"version"`
}

// Detect returns the version of the binary at path (a full path, as
// exec.LookPath returns it).
func (d Detector) Detect(ctx context.Context, path string) (Version, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return Version{}, fmt.Errorf("find %s: %w", path, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return Version{}, fmt.Errorf("find %s: %w", path, err)
	}
	cache := d.load()
	if e, ok := cache[real]; ok && e.Size == st.Size() && e.MtimeNS == st.ModTime().UnixNano() {
		if v, err := Parse(e.Version); err == nil {
			return v, nil
		}
	}
	v, err := d.ask(ctx, path)
	if err != nil {
		return Version{}, err
	}
	if cache == nil {
		cache = map[string]cacheEntry{}
	}
	cache[real] = cacheEntry{Size: st.Size(), MtimeNS: st.ModTime().UnixNano(), Version: v.String()}
	d.save(cache)
	return v, nil
}

func (d Detector) ask(ctx context.Context, path string) (Version, error) {
	out, err := program.Output(ctx, program.Cmd{Path: path, Args: []string{"--version"}, Env: d.Env, Timeout: DetectTimeout})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Version{}, fmt.Errorf("%s --version did not answer within %s", path, DetectTimeout)
		}
		return Version{}, err
	}
	v, err := Parse(out)
	if err != nil {
		return Version{}, fmt.Errorf("%s --version: %w", path, err)
	}
	return v, nil
}

func (d Detector) load() map[string]cacheEntry {
	if d.CacheFile == "" {
		return nil
	}
	b, err := os.ReadFile(d.CacheFile)
	if err != nil {
		return nil
	}
	var c map[string]cacheEntry
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	return c
}

// save writes the cache atomically; a failure only costs the next spawn
// another `--version`.
func (d Detector) save(c map[string]cacheEntry) {
	if d.CacheFile == "" {
		return
	}
	if os.MkdirAll(filepath.Dir(d.CacheFile), 0o700) != nil {
		return
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	tmp := d.CacheFile + ".tmp." + hex.EncodeToString(nonce[:])
	if os.WriteFile(tmp, b, 0o600) != nil {
		return
	}
	if os.Rename(tmp, d.CacheFile) != nil {
		os.Remove(tmp)
	}
}
