package layout

import "testing"

func lead(id string, w, h int) Pane  { return Pane{ID: id, Role: Lead, Width: w, Height: h} }
func mate(id string, w, h int) Pane  { return Pane{ID: id, Role: Teammate, Width: w, Height: h} }
func other(id string, w, h int) Pane { return Pane{ID: id, Role: Other, Width: w, Height: h} }

func TestNext(t *testing.T) {
	mv := Policy{Kind: MainVertical}
	tests := []struct {
		name   string
		policy Policy
		panes  []Pane
		want   string
	}{
		{"no window yet", Policy{}, nil, "new window"},
		{"first teammate splits the lead 70/30", Policy{}, []Pane{lead("%0", 200, 50)},
			"split %0 -h -l 70%"},
		{"lead percentage is configurable", Policy{LeadPercent: 40}, []Pane{lead("%0", 200, 50)},
			"split %0 -h -l 60%"},
		{"second teammate stacks under the first, main-vertical", mv,
			[]Pane{lead("%0", 59, 50), mate("%1", 140, 50)},
			"split %1 -v; layout main-vertical; lead %0 30%"},
		{"later teammates split the tallest teammate (last of equals)", mv,
			[]Pane{lead("%0", 59, 50), mate("%1", 140, 16), mate("%2", 140, 16), mate("%3", 140, 16)},
			"split %3 -v; layout main-vertical; lead %0 30%"},
		{"tallest teammate wins", mv,
			[]Pane{lead("%0", 59, 50), mate("%1", 140, 24), mate("%2", 140, 12), mate("%3", 140, 12)},
			"split %1 -v; layout main-vertical; lead %0 30%"},
		{"user's own panes are never rearranged", mv,
			[]Pane{lead("%0", 59, 25), other("%7", 59, 24), mate("%1", 140, 50)},
			"split %1 -v"},
		{"lead not first: main-vertical would make another pane main", mv,
			[]Pane{mate("%1", 140, 50), lead("%0", 59, 50)},
			"split %1 -v"},
		{"first teammate still splits the lead beside the user's panes", mv,
			[]Pane{other("%7", 100, 50), lead("%0", 99, 50)},
			"split %0 -h -l 70%"},
		{"another team's panes count as the user's", mv,
			[]Pane{lead("%0", 59, 50), mate("%1", 140, 25), other("%9", 140, 24)},
			"split %1 -v"},
		{"outside tmux: tiled, split the largest pane across when wide", Policy{},
			[]Pane{mate("%0", 200, 50)},
			"split %0 -h; layout tiled"},
		{"tiled splits down when the pane is tall", Policy{},
			[]Pane{mate("%0", 60, 50), mate("%1", 60, 50)},
			"split %1 -v; layout tiled"},
		{"main-vertical without a lead is tiled", mv,
			[]Pane{mate("%0", 200, 50)},
			"split %0 -h; layout tiled"},
		{"tiled inside tmux starts from the lead", Policy{Kind: Tiled},
			[]Pane{lead("%0", 200, 50)},
			"split %0 -h; layout tiled"},
		{"tiled picks the largest teammate", Policy{Kind: Tiled},
			[]Pane{lead("%0", 100, 25), mate("%1", 100, 25), mate("%2", 99, 50)},
			"split %2 -v; layout tiled"},
		{"windows: a window of its own beside the lead's, whose window is untouched", Policy{Kind: Windows},
			[]Pane{other("%7", 100, 50), lead("%0", 99, 50)},
			"own window beside %0"},
		{"windows without a lead: beside the first teammate", Policy{Kind: Windows},
			[]Pane{mate("%1", 200, 50)},
			"own window beside %1"},
		{"windows with nothing yet: the first window", Policy{Kind: Windows}, nil, "new window"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Next(tc.policy, Window{Panes: tc.panes})
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.String(); got != tc.want {
				t.Errorf("Next = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNextRefuses(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		panes  []Pane
	}{
		{"unknown layout", Policy{Kind: "even-horizontal"}, []Pane{lead("%0", 200, 50)}},
		{"lead too narrow", Policy{LeadPercent: 5}, []Pane{lead("%0", 200, 50)}},
		{"lead too wide", Policy{LeadPercent: 95}, []Pane{lead("%0", 200, 50)}},
		{"nothing of the team to split", Policy{}, []Pane{other("%3", 200, 50)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if plan, err := Next(tc.policy, Window{Panes: tc.panes}); err == nil {
				t.Errorf("Next = %v, want an error", plan)
			}
		})
	}
}

func TestAfter(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		panes  []Pane
		want   Relayout
	}{
		{"lead alone again: nothing to do", Policy{}, []Pane{lead("%0", 200, 50)}, Relayout{}},
		{"teammates left: main-vertical, lead back to 30%", Policy{},
			[]Pane{lead("%0", 100, 50), mate("%2", 99, 50)},
			Relayout{Layout: MainVertical, Lead: "%0", LeadPercent: 30}},
		{"user panes: leave the window alone", Policy{},
			[]Pane{lead("%0", 100, 50), other("%5", 99, 25), mate("%2", 99, 24)}, Relayout{}},
		{"private server: tiled", Policy{}, []Pane{mate("%1", 100, 50), mate("%2", 99, 50)},
			Relayout{Layout: Tiled}},
		{"windows: nothing is rearranged", Policy{Kind: Windows},
			[]Pane{lead("%0", 100, 50), mate("%2", 99, 50)}, Relayout{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := After(tc.policy, Window{Panes: tc.panes}); got != tc.want {
				t.Errorf("After = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseKind(t *testing.T) {
	for _, s := range []string{"", "main-vertical", "tiled", "windows"} {
		if _, err := ParseKind(s); err != nil {
			t.Errorf("ParseKind(%q): %v", s, err)
		}
	}
	if _, err := ParseKind("tiles"); err == nil {
		t.Error("ParseKind(tiles) succeeded")
	}
}

func TestCarve(t *testing.T) {
	w := Window{Panes: []Pane{{ID: "%0", Role: Lead, Width: 200, Height: 50}, {ID: "%1", Role: Teammate, Width: 140, Height: 50}}}
	for _, c := range []struct {
		sp             Split
		nw, nh, lw, lh int
	}{
		{Split{Target: "%0", Horizontal: true, Percent: 70}, 140, 50, 60, 50},
		{Split{Target: "%1"}, 140, 25, 140, 25},
		{Split{Target: "%1", Percent: 30}, 140, 15, 140, 35},
		{Split{Target: "%9", Horizontal: true}, 0, 0, 0, 0},
	} {
		nw, nh, lw, lh := Carve(w, c.sp)
		if nw != c.nw || nh != c.nh || lw != c.lw || lh != c.lh {
			t.Errorf("Carve(%+v) = %d %d %d %d, want %d %d %d %d", c.sp, nw, nh, lw, lh, c.nw, c.nh, c.lw, c.lh)
		}
	}
}
