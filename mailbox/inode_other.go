//go:build !unix

package mailbox

import "os"

// inode is unknown here; size and mtime still reveal most changes, and
// file-system events the rest.
func inode(os.FileInfo) uint64 { return 0 }
