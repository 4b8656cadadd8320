package team

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestSanitisers(t *testing.T) {
	for _, c := range []struct{ in, team, path string }{
		{"My Team", "my-team", "My-Team"},
		{"a_b", "a-b", "a_b"},
		{"../x", "---x", "---x"},
		{"ünï", "-n-", "-n-"},
		{"a😀b", "a--b", "a--b"}, // JS replaces UTF-16 code units
		{"bob@alpha", "bob-alpha", "bob-alpha"},
	} {
		if got := SanitizeTeam(c.in); got != c.team {
			t.Errorf("SanitizeTeam(%q) = %q, want %q", c.in, got, c.team)
		}
		if got := SanitizePath(c.in); got != c.path {
			t.Errorf("SanitizePath(%q) = %q, want %q", c.in, got, c.path)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"My Team", "../../etc", "a/b", "", "é", "x\x00", "..", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		team, path := SanitizeTeam(s), SanitizePath(s)
		for _, out := range []string{team, path} {
			if strings.ContainsAny(out, "/.\x00\\") {
				t.Fatalf("%q sanitised to unsafe %q", s, out)
			}
		}
		for _, r := range team {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Fatalf("team name %q has %q", team, r)
			}
		}
		// A canonical team name means the same folder to both sanitisers.
		if SanitizePath(team) != team || SanitizeTeam(team) != team {
			t.Fatalf("canonical %q is not a fixed point", team)
		}
		if CheckName("team", s) == nil && strings.Trim(path, "-") == "" {
			t.Fatalf("%q accepted but names nothing", s)
		}
	})
}

// TestSanitisersMatchJavaScript runs Claude Code's two replace expressions
// in Node over awkward inputs and compares.
func TestSanitisersMatchJavaScript(t *testing.T) {
	testutil.RequireTool(t, "node")
	inputs := []string{"My Team", "a_b-c", "../..", "ünï", "a😀b", "日本語", "tab\there", "MiXeD", "x.y@z"}
	js := `const ins = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(ins.map(s => [s.replace(/[^a-zA-Z0-9]/g, '-').toLowerCase(), s.replace(/[^a-zA-Z0-9_-]/g, '-')])));`
	in, _ := json.Marshal(inputs)
	cmd := exec.Command("node", "-e", js)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want [][2]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, s := range inputs {
		if got := SanitizeTeam(s); got != want[i][0] {
			t.Errorf("SanitizeTeam(%q) = %q, JavaScript gives %q", s, got, want[i][0])
		}
		if got := SanitizePath(s); got != want[i][1] {
			t.Errorf("SanitizePath(%q) = %q, JavaScript gives %q", s, got, want[i][1])
		}
	}
}

func TestReservedTeammateNames(t *testing.T) {
	refused := map[string]string{
		"main":                                 "reserved",
		"Main":                                 "reserved",
		"team-lead":                            "reserved",
		"Team Lead":                            "reserved",
		" TEAM-LEAD ":                          "reserved",
		"team\u200b-lead":                      "reserved", // a zero-width space is a format character
		"ｔｅａｍ－ｌｅａｄ":                            "reserved", // full-width forms fold under NFKC
		"User":                                 "reserved",
		"SYSTEM":                               "reserved",
		"alice@review":                         "agent id",
		"a0123456789abcdef":                    "session or agent id",
		"6f9c1d2e-8a7b-4c3d-9e0f-112233445566": "session or agent id",
		"6F9C1D2E-8A7B-4C3D-9E0F-112233445566": "session or agent id",
		"session_011CUMwJFpPRvmYHbxHbeb4k":     "session or agent id",
		"bob\x1b[31m":                          "control character",
		"tab\tname":                            "control character",
	}
	for name, why := range refused {
		err := CheckTeammateName(name)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want an error saying %q", name, err, why)
		}
		if err := CheckName("member", name); err == nil {
			t.Errorf("CheckName(member, %q) accepted it", name)
		}
	}
	for _, ok := range []string{"alice", "team-leader", "users", "main-2", "Reviewer 1", "système", "a-b"} {
		if err := CheckTeammateName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	// A team may still be called anything CheckName allowed before.
	if err := CheckName("team", "main"); err != nil {
		t.Errorf("team main: %v", err)
	}
	cfg := &Config{Name: "t"}
	if _, err := cfg.AddMember(Member{Name: "Team Lead"}); err == nil {
		t.Error("AddMember accepted a reserved name")
	}
}

func TestIsLeadSender(t *testing.T) {
	for from, want := range map[string]bool{"team-lead": true, "Team Lead": true, "USER": true, "system ": true, "alice": false, "team-leader": false} {
		if got := IsLeadSender(from); got != want {
			t.Errorf("IsLeadSender(%q) = %v", from, got)
		}
	}
}

// SameName compares every form a name is read in: Claude Code's
// normalised name and the inbox file's name (case-folded).
func TestSameName(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"team.lead", LeadName, true}, // one inbox file
		{"Team Lead", LeadName, true}, // one normalised name
		{"TEAM-LEAD", LeadName, true}, // one file where case folds
		{"team\u200b.lead", LeadName, true},
		{"team_lead", LeadName, false},
		{"a.b", "a-b", true},
		{"a.b", "ab", false},
	} {
		if got := SameName(tc.a, tc.b); got != tc.same {
			t.Errorf("SameName(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
