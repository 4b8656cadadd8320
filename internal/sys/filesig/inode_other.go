//go:build !unix

package filesig

import "os"

// inode is unknown here; size and mtime still reveal most changes, and
// file-system events the rest.
func Inode(os.FileInfo) uint64 { return 0 }
