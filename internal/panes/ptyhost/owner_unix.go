package ptyhost

import (
	"fmt"
	"os"
	"syscall"
)

func ownedByMe(fi os.FileInfo, path string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user: remove it or set TMPDIR", path)
	}
	return nil
}
