package shim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/paneteam/paneteam/internal/sys/proc"
)

// PaneAlive reports whether paneteam's tmux in dir made pane id, and
// whether what runs in it is alive.
func PaneAlive(dir, id string) (found, alive bool) {
	st, err := ReadVirtual(dir)
	if err != nil {
		return false, false
	}
	for _, p := range st.Panes {
		if p.ID == id {
			return true, gateAlive(p.Gate)
		}
	}
	return false, false
}

// SweepVirtual removes, under parent, the folders of paneteam's tmux
// whose lead is gone and which hold no pane: what a lead that closed its
// teammates' panes at its exit leaves. A folder with panes left is
// 'cleanup --orphans” to close.
func SweepVirtual(parent string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		dir := filepath.Join(parent, e.Name())
		st, err := ReadVirtual(dir)
		if err != nil || len(st.Panes) > 0 {
			continue
		}
		if pid, start, ok := procTag(st.Lead); !ok || proc.Alive(pid, start) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// CloseAll closes every pane of the virtual server in dir (its lead is
// gone: 'cleanup --orphans') and removes the folder. It returns the ids
// of the panes it closed.
func CloseAll(ctx context.Context, dir string, getenv func(string) string) ([]string, error) {
	st, err := ReadVirtual(dir)
	if err != nil {
		return nil, err
	}
	s := &Shim{Getenv: getenv}
	v := &virtual{s: s, dir: dir, st: st}
	var ids []string
	var errs []error
	for _, p := range st.Panes {
		if err := v.closePane(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("pane %s (%s %s): %w", p.ID, st.Terminal, p.Handle, err))
			continue
		}
		ids = append(ids, p.ID)
	}
	sort.Strings(ids)
	if len(errs) == 0 {
		os.RemoveAll(dir)
	}
	return ids, errors.Join(errs...)
}
