package iterm2_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/team"
)

// Trigger actions that run a program or type text into the session: a
// captured line must never reach a shell, so the kit uses none of them.
var shellActions = map[string]bool{
	"ScriptTrigger": true, "CoprocessTrigger": true, "MuteCoprocessTrigger": true,
	"SendTextTrigger": true, "iTermRPCTrigger": true, "iTermInjectTrigger": true,
}

// backref is a capture reference in a trigger parameter (\0 .. \9).
var backref = regexp.MustCompile(`\\[0-9]`)

func TestDynamicProfileIsWhatITerm2Reads(t *testing.T) {
	b, err := iterm2.ProfileJSON()
	if err != nil {
		t.Fatal(err)
	}
	// Read it back generically: the documented keys, not our struct tags.
	var doc map[string][]map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("profile is not valid JSON: %v", err)
	}
	profiles, ok := doc["Profiles"]
	if !ok || len(doc) != 1 {
		t.Fatalf("top level keys %v; want exactly \"Profiles\"", keys(doc))
	}
	guids := map[string]bool{}
	byName := map[string]map[string]any{}
	for _, p := range profiles {
		name, _ := p["Name"].(string)
		guid, _ := p["Guid"].(string)
		if name == "" || guid == "" || guids[guid] {
			t.Fatalf("profile %v: Name and a unique Guid are required", p)
		}
		guids[guid] = true
		byName[name] = p
		if badge, _ := p["Badge Text"].(string); !strings.Contains(badge, `\(user.`+iterm2.AgentVar+`)`) {
			t.Errorf("%s: badge %q does not show the agent's name", name, badge)
		}
		if p["Use Tab Color"] != true {
			t.Errorf("%s: tab colour not enabled", name)
		}
		col, _ := p["Tab Color"].(map[string]any)
		for _, k := range []string{"Red Component", "Green Component", "Blue Component"} {
			v, ok := col[k].(float64)
			if !ok || v < 0 || v > 1 {
				t.Errorf("%s: Tab Color %s = %v; want a number in [0,1]", name, k, col[k])
			}
		}
		trigs, _ := p["Triggers"].([]any)
		if len(trigs) == 0 {
			t.Errorf("%s: no triggers", name)
		}
		for _, tr := range trigs {
			tm := tr.(map[string]any)
			action, _ := tm["action"].(string)
			param, _ := tm["parameter"].(string)
			re, _ := tm["regex"].(string)
			if action == "" || re == "" || shellActions[action] {
				t.Errorf("%s: trigger %v: want a regex and an action that runs nothing", name, tm)
			}
			if _, err := regexp.Compile(re); err != nil {
				t.Errorf("%s: trigger regex %q: %v", name, re, err)
			}
			if backref.MatchString(param) {
				t.Errorf("%s: trigger parameter %q passes captured text on", name, param)
			}
		}
	}
	// Every team colour has its profile, under the name the backend asks for.
	for _, c := range team.Colors {
		if byName[iterm2.ProfileName(c)] == nil {
			t.Errorf("no profile %q for team colour %s", iterm2.ProfileName(c), c)
		}
	}
}

// examples/iterm2 holds exactly what 'paneteam iterm2 profile' prints.
func TestExampleProfileIsCurrent(t *testing.T) {
	want, err := iterm2.ProfileJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testutil.ModuleRoot(), "examples", "iterm2", "paneteam.json")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: regenerate it with 'paneteam iterm2 profile > %s'", path, path)
	}
}

func keys[M ~map[string]V, V any](m M) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
