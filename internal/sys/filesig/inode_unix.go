//go:build unix

package filesig

import (
	"os"
	"syscall"
)

// Inode is st's inode number (0 where the system has none).
func Inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
