package native

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/tests/kittytest"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

// Each terminal shows a teammate's name where its person looks for it, as
// tmux shows a titled pane: checked in what the terminal's own listing
// prints.

func TestITerm2SetTitleNamesTheSession(t *testing.T) {
	for _, fl := range []it2test.Flavor{it2test.Python, it2test.Swift} {
		t.Run(string(fl), func(t *testing.T) {
			s := iterm2Start(t, fl)
			ctx := weztermCtx(t)
			h, err := s.t.Open(ctx, Open{Argv: []string{"cat"}, Place: Place{Horizontal: true}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.t.SetTitle(ctx, h, "dora", false); err != nil {
				t.Fatal(err)
			}
			ls, err := s.f.Listed()
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{}
			for _, x := range ls {
				names[x.ID] = x.Name
			}
			if names[string(h)] != "dora" || names[s.f.LeadID] != "lead (-zsh)" {
				t.Fatalf("it2 session list names %v; want %s named dora and the lead's left alone", names, h)
			}
			if err := s.t.SetTitle(ctx, Handle(s.f.LeadID), "x", false); err == nil {
				t.Error("naming the lead's session succeeded; paneteam never renames it")
			}
			s.f.CloseSession(string(h))
			if err := s.t.SetTitle(ctx, h, "dora", false); err == nil {
				t.Error("naming a closed session succeeded")
			}
		})
	}
}

func TestKittySetTitleNamesTheWindowAndItsTab(t *testing.T) {
	ctx := kittyCtx(t)
	k := kittytest.Start(t, kittytest.Options{})
	term := kittyDriver(t, k)
	split, err := term.Open(ctx, Open{Argv: []string{"sleep", "600"}, Place: Place{Horizontal: true}})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := term.Open(ctx, Open{Argv: []string{"sleep", "600"}, Place: Place{OwnTab: true}})
	if err != nil {
		t.Fatal(err)
	}
	titler := term.(Titler)
	if err := titler.SetTitle(ctx, split, "dora", false); err != nil {
		t.Fatal(err)
	}
	if err := titler.SetTitle(ctx, tab, "eve", true); err != nil {
		t.Fatal(err)
	}
	ls := k.List(t)
	for h, want := range map[Handle]string{split: "dora", tab: "eve"} {
		if w, _, ok := ls.Find(string(h)); !ok || w.Title != want {
			t.Errorf("kitty @ ls shows window %s titled %q; want %q", h, w.Title, want)
		}
	}
	lead, leadTab, _ := ls.Find(k.Window)
	_, eveTab, _ := ls.Find(string(tab))
	for _, o := range ls {
		for _, tb := range o.Tabs {
			switch tb.ID {
			case eveTab:
				if tb.Title != "eve" {
					t.Errorf("kitty @ ls shows eve's tab titled %q; want eve", tb.Title)
				}
			case leadTab:
				if tb.Title == "dora" || lead.Title == "dora" {
					t.Errorf("naming dora's window renamed the lead's tab %q or window %q", tb.Title, lead.Title)
				}
			}
		}
	}
}

// fakeList runs the fake terminal's CLI from outside it.
func fakeList(t *testing.T, tm *nativetest.Terminal, args ...string) []map[string]any {
	t.Helper()
	cmd := exec.Command(tm.Bin, args...)
	cmd.Env = tm.Env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", tm.Kind, args, err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("%s %v printed %s: %v", tm.Kind, args, out, err)
	}
	return rows
}

// fakeRow is the row of rows whose key is id.
func fakeRow(rows []map[string]any, key string, id int) map[string]any {
	for _, r := range rows {
		if n, ok := r[key].(float64); ok && int(n) == id {
			return r
		}
	}
	return nil
}

func TestWezTermSetTitleNamesTabsOnly(t *testing.T) {
	tm, d := weztermStart(t)
	ctx := weztermCtx(t)
	split := openFakePane(t, tm, d, Place{Horizontal: true}, "")
	tab := openFakePane(t, tm, d, Place{OwnTab: true}, "")
	titler := d.(Titler)
	if err := titler.SetTitle(ctx, Handle(strconv.Itoa(split.ID)), "dora", false); err != nil {
		t.Fatal(err)
	}
	if err := titler.SetTitle(ctx, Handle(strconv.Itoa(tab.ID)), "eve", true); err != nil {
		t.Fatal(err)
	}
	rows := fakeList(t, tm, "cli", "list", "--format", "json")
	if r := fakeRow(rows, "pane_id", tab.ID); r == nil || r["tab_title"] != "eve" {
		t.Errorf("wezterm cli list shows eve's pane as %v; want tab_title eve", r)
	}
	if r := fakeRow(rows, "pane_id", split.ID); r == nil || r["tab_title"] == "dora" {
		t.Errorf("wezterm cli list shows dora's split as %v: naming it renamed the lead's tab", r)
	}
}

func TestZellijSetTitleNamesPanesFrom0441(t *testing.T) {
	tm, d := zellijStart(t)
	ctx := weztermCtx(t)
	a := openFakePane(t, tm, d, Place{Horizontal: true}, "")
	b := openFakePane(t, tm, d, Place{OwnTab: true}, "")
	titler := d.(Titler)
	for id, name := range map[int]string{a.ID: "dora", b.ID: "eve"} {
		if err := titler.SetTitle(ctx, Handle(strconv.Itoa(id)), name, id == b.ID); err != nil {
			t.Fatal(err)
		}
	}
	rows := fakeList(t, tm, "--session", "team-one", "action", "list-panes", "--json")
	for id, name := range map[int]string{a.ID: "dora", b.ID: "eve"} {
		if r := fakeRow(rows, "id", id); r == nil || r["title"] != name {
			t.Errorf("zellij action list-panes shows pane %d as %v; want title %s", id, r, name)
		}
	}
	if r := fakeRow(rows, "id", tm.First); r == nil || r["title"] == "dora" || r["title"] == "eve" {
		t.Errorf("the lead's pane was renamed: %v", r)
	}

	// Before 0.44.1 rename-pane names only the focused pane: nothing is
	// named, and that is no error.
	t.Setenv("FAKEZELLIJ_VERSION", "zellij 0.43.1")
	if err := titler.SetTitle(ctx, Handle(strconv.Itoa(a.ID)), "frank", false); err != nil {
		t.Fatalf("SetTitle on Zellij 0.43.1: %v; want nothing done and no error", err)
	}
	rows = fakeList(t, tm, "--session", "team-one", "action", "list-panes", "--json")
	for _, r := range rows {
		if r["title"] == "frank" {
			t.Errorf("Zellij 0.43.1 renamed pane %v", r)
		}
	}
}
