package shim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
)

// CloseAll closes every pane of the virtual server in dir (its lead is
// gone: 'cleanup --orphans') and removes the folder. It returns the ids
// of the panes it closed.
func CloseAll(ctx context.Context, dir string, getenv func(string) string) ([]string, error) {
	st, err := virtualtmux.Read(dir)
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
