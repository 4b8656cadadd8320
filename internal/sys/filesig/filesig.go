// Package filesig tells whether a file may have changed without reading
// it, for watchers that poll (inboxes, team folders).
package filesig

import (
	"fmt"
	"os"
	"time"
)

// Sig is what a stat says of a file: the inode changes on every rename
// over it (an atomic write), size and mtime on an in-place write (Claude
// Code's config.json). Equal signatures mean "probably unchanged".
type Sig struct {
	Exists bool
	size   int64
	mtime  time.Time
	ino    uint64
}

// Stat is path's signature; a file that cannot be stat'ed has the zero
// signature (Exists false).
func Stat(path string) Sig {
	st, err := os.Stat(path)
	if err != nil {
		return Sig{}
	}
	return Of(st)
}

// Of is the signature of a file already stat'ed.
func Of(st os.FileInfo) Sig {
	return Sig{Exists: true, size: st.Size(), mtime: st.ModTime(), ino: Inode(st)}
}

// Key is the signature as a string a process can store and a later one
// compare (paneteam's memo of inbox counts): equal keys, equal signatures.
func (s Sig) Key() string {
	if !s.Exists {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d", s.size, s.mtime.UnixNano(), s.ino)
}

// Settled is whether the file's mtime is at least d before now: a file
// written again within its file system's mtime granularity (a second on
// some, two on others) can keep its size and mtime, so a signature taken
// too soon after a write may not tell the next one.
func (s Sig) Settled(now time.Time, d time.Duration) bool {
	return s.Exists && now.Sub(s.mtime) >= d
}
