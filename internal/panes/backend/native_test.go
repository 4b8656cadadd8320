package backend_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

// A census asks a terminal for its panes once, however many members are
// in it, and judges a pane the person closed by hand dead.
func TestCensusListsATerminalOnce(t *testing.T) {
	tm := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	lead := tm.Getenv(tm.First)
	env := backend.Env{
		Getenv: lead,
		LookPath: func(name string) (string, error) {
			if name == "wezterm" {
				return tm.Bin, nil
			}
			return "/usr/bin/" + name, nil
		},
	}
	tt := team.Team{Root: t.TempDir(), Name: "alpha"}
	cfg := &team.Config{Name: "alpha"}
	b, err := backend.Choose(env, cfg, team.BackendWezTerm)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob", "carol"} {
		m := team.Member{Name: name, AgentID: name + "@alpha", Cwd: os.TempDir()}
		p, err := b.Spawn(context.Background(), backend.Spec{Team: tt, Config: cfg, Member: m, Argv: []string{"sleep", "600"}, Layout: layout.Policy{}})
		if err != nil {
			t.Fatal(err)
		}
		m.TmuxPaneID, m.BackendType, m.Paneteam = p.ID, p.Backend, p.Meta
		cfg.Members = append(cfg.Members, m)
	}
	bob := cfg.Member("bob")
	id, _ := strconv.Atoi(bob.TmuxPaneID)
	if err := tm.Close(id); err != nil { // the person closes bob's pane
		t.Fatal(err)
	}

	lists := func() int {
		calls, err := tm.Calls()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range calls {
			if slices.Contains(c, "list") {
				n++
			}
		}
		return n
	}
	before := lists()
	census := backend.NewCensus(env)
	want := map[string]bool{"alice": true, "bob": false, "carol": true}
	for name, alive := range want {
		got, err := census.Alive(context.Background(), cfg, cfg.Member(name))
		if err != nil || got != alive {
			t.Errorf("%s alive: %v, %v; want %v", name, got, err, alive)
		}
	}
	if n := lists() - before; n != 1 {
		t.Errorf("the census listed WezTerm's panes %d times for three members; want once", n)
	}
}
