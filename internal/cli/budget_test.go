package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// A team's budget is set at team-create, changed and shown by 'budget',
// kept in paneteam's state folder (not in config.json); a member's kept
// budget status shows in status (text and --json); and --budget is
// refused where nothing could hold it, before anything starts.
func TestTeamBudgetAndWhereABudgetIsRefused(t *testing.T) {
	root, vars := ptRootVars(t)
	state := filepath.Join(vars["HOME"], ".local", "state", "paneteam")
	if out, errOut, code := ptRun(t, vars, "", "team-create", "crew", "--budget", "20"); code != 0 {
		t.Fatalf("team-create --budget: %d %s%s", code, out, errOut)
	}
	show := func() (usd *float64) {
		out, errOut, code := ptRun(t, vars, "", "budget", "--team", "crew", "--json")
		var got struct {
			USD *float64 `json:"usd"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("budget --json: %d %s%s", code, out, errOut)
		}
		return got.USD
	}
	if u := show(); u == nil || *u != 20 {
		t.Fatalf("the team's budget after team-create --budget 20: %v", u)
	}
	ptRun(t, vars, "", "budget", "--team", "crew", "30")
	if u := show(); u == nil || *u != 30 {
		t.Fatalf("the team's budget after 'budget 30': %v", u)
	}
	tm, cfg, err := team.Open(root, "crew")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(cfg); strings.Contains(string(b), `"usd"`) || strings.Contains(string(b), `"budget"`) {
		t.Errorf("config.json holds the budget: %s", b)
	}
	spent := 5.5
	budget.Save(state, tm, "team-lead", budget.Status{USD: 5, SpentUSD: &spent, State: budget.Stopped,
		Why: "over its budget of $5.00 ($5.50 spent); it ended"})
	out, _, _ := ptRun(t, vars, "", "status", "--team", "crew")
	if !strings.Contains(out, "budget team-lead: $5.50 of $5.00 stopped: over its budget of $5.00 ($5.50 spent); it ended") {
		t.Errorf("status does not say why the member stopped:\n%s", out)
	}
	out, _, _ = ptRun(t, vars, "", "status", "--team", "crew", "--json")
	if !strings.Contains(out, `"budget": {`) || !strings.Contains(out, `"state": "stopped"`) {
		t.Errorf("status --json has no member budget:\n%s", out)
	}
	ptRun(t, vars, "", "budget", "--team", "crew", "0")
	if u := show(); u != nil {
		t.Fatalf("the team's budget after 'budget 0': %v, want none", *u)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"spawn-pane", "--team", "crew", "--name", "far", "--claude", "--host", "buildbox", "--budget", "1"}, "paneteam reads no usage from another host"},
		{[]string{"spawn-pane", "--team", "crew", "--name", "sh", "--budget", "1", "--", "sleep", "9"}, "paneteam cannot see what sleep spends"},
		{[]string{"teammate", "--team", "crew", "--name", "sh", "--budget", "1", "--", "sleep", "9"}, "paneteam cannot see what sleep spends"},
		{[]string{"spawn-pane", "--team", "crew", "--name", "sh", "--claude", "--budget", "-1"}, "give a positive amount"},
		{[]string{"spawn-pane", "--team", "crew", "--name", "sh", "--claude", "--budget", "NaN"}, "give a positive amount"},
		{[]string{"budget", "--team", "crew", "inf"}, "give an amount of US dollars"},
	} {
		out, errOut, code := ptRun(t, vars, "", c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, want a usage error saying %q\n%s%s", strings.Join(c.args, " "), code, c.want, out, errOut)
		}
	}
	if _, cfg, _ := team.Open(root, "crew"); len(cfg.Members) != 1 {
		t.Errorf("a refused teammate was added: %+v", cfg.Members)
	}
}

// The status line counts a team's members near and over their budgets, as
// the budget watch leaves them (its kept status, the state folder's): one
// warned and two stopped in crew read "$✗2 over budget $!1 near budget"
// at the end of crew's segment; a member within budget, and a team whose
// members all are, add nothing.
func TestStatusLineCountsMembersNearAndOverBudget(t *testing.T) {
	root, vars := ptRootVars(t)
	state := filepath.Join(vars["HOME"], ".local", "state", "paneteam")
	spent := func(usd float64) *float64 { return &usd }
	for teamName, members := range map[string]map[string]budget.Status{
		"crew": {
			"alice": {USD: 1, SpentUSD: spent(0.85), State: budget.Warned},
			"bob":   {USD: 1, SpentUSD: spent(1.02), State: budget.Stopped, Why: "over its budget of $1.00 ($1.02 spent); Codex was asked to quit, then ended"},
			"carol": {USD: 2, SpentUSD: spent(2.5), State: budget.Stopped, Why: "over its budget of $2.00 ($2.50 spent); it ended"},
			"dave":  {USD: 5, SpentUSD: spent(0.1), State: budget.OK},
		},
		"calm": {"erin": {USD: 1, SpentUSD: spent(0.2), State: budget.OK}},
	} {
		if out, errOut, code := ptRun(t, vars, "", "team-create", teamName); code != 0 {
			t.Fatalf("team-create %s: %d %s%s", teamName, code, out, errOut)
		}
		tm, _, err := team.Open(root, teamName)
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range members {
			if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
				m, err := c.AddMember(team.Member{Name: name, Cwd: root})
				if err == nil && s.State == budget.Stopped {
					inactive := false // as the stop leaves it
					m.IsActive = &inactive
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if err := budget.Save(state, tm, name, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, errOut, code := ptRun(t, vars, "", "status", "--format", "tmux")
	if code != 0 {
		t.Fatalf("status --format tmux: %d %s%s", code, out, errOut)
	}
	segs := map[string]string{}
	for _, seg := range strings.Split(strings.TrimSuffix(out, "\n"), "  ") {
		name, _, _ := strings.Cut(seg, " ")
		segs[name] = seg
	}
	if want := " #[fg=red]$✗2 over budget#[default] #[fg=yellow]$!1 near budget#[default]"; !strings.HasSuffix(segs["crew"], want) {
		t.Errorf("crew's status line segment %q does not end with %q", segs["crew"], want)
	}
	if seg := segs["calm"]; seg == "" || strings.Contains(seg, "budget") {
		t.Errorf("calm's status line segment %q, want one without budget words (its member is within budget)", seg)
	}
}
