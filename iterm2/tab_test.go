package iterm2_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

// NewTab returns the session of the tab it2 made (it2 prints the tab's
// id), in the window asked for.
func TestNewTab(t *testing.T) {
	for _, fl := range flavors {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := it2test.New(t, fl)
			c := client(f)
			win, err := c.WindowOf(ctx, f.LeadID)
			if err != nil || win == "" {
				t.Fatalf("WindowOf(lead) = %q, %v", win, err)
			}
			id, err := c.NewTab(ctx, win)
			if err != nil {
				t.Fatal(err)
			}
			s, lead := f.Session(id), f.Session(f.LeadID)
			if s == nil || s.TabID == lead.TabID || s.WindowID != win {
				t.Fatalf("new tab's session %+v; want a new tab in window %s", s, win)
			}
			if _, err := c.NewTab(ctx, "no-such-window"); err == nil {
				t.Fatal("NewTab in a missing window succeeded")
			}
			f.Change(func(st *it2test.State) { st.APIOff = true })
			if _, err := c.NewTab(ctx, ""); !errors.Is(err, iterm2.ErrAPIUnavailable) {
				t.Fatalf("NewTab with the API off: %v; want ErrAPIUnavailable", err)
			}
		})
	}
}
