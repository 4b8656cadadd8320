// Package filesig tells whether a file may have changed without reading
// it, for watchers that poll (inboxes, team folders).
package filesig

import (
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
