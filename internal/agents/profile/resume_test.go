package profile

import (
	"slices"
	"strings"
	"testing"
)

// Continuing a session: the profile's resume comes right after the
// program (Codex's subcommand), the first prompt is paneteam's word that
// the teammate was started again, and a CLI whose screen ignores the
// prompt there (OpenCode) gets none on its command line, its plugin
// holding the session and the prompt instead.
func TestResumeContinuesTheSession(t *testing.T) {
	const sid = "019a1b2c-0d4e-7f60-8a9b-0c1d2e3f4a5b"
	for _, c := range []struct {
		name, first string
		resume      []string
		prompt      bool
	}{
		{"codex", "resume", []string{"resume", sid}, true},
		{"gemini", "--resume", []string{"--resume", sid}, true},
		{"opencode", "--session", []string{"--session", sid}, false},
	} {
		p, err := Find(c.name, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Team: "crew", Agent: "coder", Cwd: "/src", Home: t.TempDir(), Paneteam: "/bin/paneteam", Prompt: "Take task 1.", Session: sid}
		l, err := Build(p, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(l.Argv[1:3], c.resume) {
			t.Errorf("%s: argv %q, want %q right after the program", c.name, l.Argv, c.resume)
		}
		argv := strings.Join(l.Argv, "\n")
		if strings.Contains(argv, "started you again") != c.prompt || strings.Contains(argv, "Take task 1.") {
			t.Errorf("%s: argv %q; want paneteam's resume prompt on it: %v, never the first prompt again", c.name, l.Argv, c.prompt)
		}
		if !c.prompt {
			found := false
			for _, f := range l.Files {
				found = found || strings.Contains(string(f.Data), sid) && strings.Contains(string(f.Data), "started you again")
			}
			if !found {
				t.Errorf("%s: no file of its run holds the session and the resume prompt", c.name)
			}
		}
		o.Session = ""
		fresh, _ := Build(p, o)
		if slices.Contains(fresh.Argv, c.first) {
			t.Errorf("%s: a fresh start runs %q", c.name, fresh.Argv)
		}
		o.Session = "--dangerously-bypass-approvals-and-sandbox"
		if _, err := Build(p, o); err == nil {
			t.Errorf("%s: a flag was taken as a session id", c.name)
		}
	}
}

// A profile cannot continue a session without knowing it: "resume"
// needs the hook's session key, and a profile without "resume" refuses
// a session rather than start fresh unsaid.
func TestResumeNeedsTheHooksSession(t *testing.T) {
	_, err := Parse([]byte(`{"program": "x", "resume": ["--resume", "{{session}}"]}`), "x", "test")
	if err == nil || !strings.Contains(err.Error(), "hookInput.session") {
		t.Errorf("resume without hookInput.session: %v", err)
	}
	p, err := Parse([]byte(`{"program": "x", "permission": {"default": []}}`), "x", "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(p, Options{Home: t.TempDir(), Session: "abc"}); err == nil || !strings.Contains(err.Error(), "cannot continue a session") {
		t.Errorf("a session for a profile without resume: %v", err)
	}
}

func TestValidSession(t *testing.T) {
	for id, want := range map[string]bool{
		"019a1b2c-0d4e-7f60-8a9b-0c1d2e3f4a5b": true, "ses_de37c45dfffeWkhTdxRTM01XJz": true, "s-bob": true,
		"": false, "-c": false, "_x": false, "a b": false, "a/b": false, "a\nb": false, strings.Repeat("a", 129): false,
	} {
		if got := ValidSession(id); got != want {
			t.Errorf("ValidSession(%q) = %v, want %v", id, got, want)
		}
	}
}
