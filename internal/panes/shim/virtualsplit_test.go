package shim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
)

// TestVirtualServerSplitsBesideALivePane: the person closed the pane the
// layout would split next, and its teammate has not yet answered the
// hang-up (so its gate still runs). The terminal refuses that split; the
// shim drops the closed pane, ends its teammate, and splits beside the
// live teammate instead, and with every teammate's pane closed, beside
// the lead.
func TestVirtualServerSplitsBesideALivePane(t *testing.T) {
	r := newVrig(t, "main-vertical")
	work := t.TempDir()
	r.spawn("dora", "cd "+work+" && echo dora > dora && exec sleep 300")
	waitFile(t, filepath.Join(work, "dora"))
	p2 := r.spawn("eve", "cd "+work+" && trap '' HUP && echo eve > eve && exec sleep 300")
	waitFile(t, filepath.Join(work, "eve"))
	st, _ := virtualtmux.Read(r.dir)
	eve := st.Panes[1]
	if eve.ID != p2 || eve.Handle != "w2" {
		t.Fatalf("eve's pane %+v", eve)
	}
	r.term.mu.Lock()
	r.term.byHand["w2"] = true // the person closes eve's pane
	r.term.mu.Unlock()

	p3 := r.spawn("frank", "cd "+work+" && echo frank > frank && exec sleep 300")
	waitFile(t, filepath.Join(work, "frank"))
	places := r.term.places
	if len(places) != 3 || places[2].Beside != "w1" || places[2].Horizontal {
		t.Fatalf("places = %+v; want frank below dora's w1 (eve's w2 is closed)", places)
	}
	if virtualtmux.GateAlive(eve.Gate) {
		t.Error("the teammate of the closed pane still runs")
	}
	if got := strings.Fields(r.must("-S", r.sock(), "list-panes", "-t", "@0", "-F", "#{pane_id}")); strings.Join(got, " ") != "%0 %1 "+p3 {
		t.Fatalf("list-panes = %v; want the lead, dora's and frank's", got)
	}

	// Every teammate's pane closed by hand: the next splits the lead.
	r.term.mu.Lock()
	r.term.byHand["w1"], r.term.byHand["w3"] = true, true
	r.term.mu.Unlock()
	r.spawn("gus", "cd "+work+" && echo gus > gus && exec sleep 300")
	waitFile(t, filepath.Join(work, "gus"))
	if last := r.term.places[len(r.term.places)-1]; last != (native.Place{Horizontal: true, Percent: 70}) {
		t.Fatalf("gus's place = %+v; want beside the lead at 70%%", last)
	}
}

// TestVirtualServerNamesTeammatesPanes: select-pane -T, with which
// Claude's lead titles its teammate's pane, names the pane in the
// terminal, with what a terminal would act on made visible; a terminal
// refusing the name fails nothing, and the refusal is in the shim's log.
func TestVirtualServerNamesTeammatesPanes(t *testing.T) {
	r := newVrig(t, "main-vertical")
	p := r.spawn("dora", "exec sleep 300")
	if got := r.term.titles["w1"]; got != "dora" {
		t.Fatalf("pane %s (w1) is named %q in the terminal; want dora", p, got)
	}
	r.must("-S", r.sock(), "select-pane", "-t", p, "-T", "dora\x1b]0;owned\x07")
	if got, want := r.term.titles["w1"], `$'dora\x1b]0;owned\x07'`; got != want {
		t.Fatalf("a name holding escapes reached the terminal as %q; want %q", got, want)
	}
	r.must("-S", r.sock(), "select-pane", "-t", p, "-T", "refuse")
	if b, _ := os.ReadFile(r.env[EnvLog]); !strings.Contains(string(b), "name pane "+p+" in testterm: no pane w1 to name") {
		t.Fatalf("the refused name is not in the shim's log:\n%s", b)
	}
}
