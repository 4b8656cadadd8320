package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/panes/ptyhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// hostile is what a teammate, or any program writing the team's folder,
// can plant in a text paneteam shows: the clipboard written (OSC 52), the
// window retitled, the screen cleared (as CSI and as the one-byte C1
// CSI), the text reversed (a bidirectional override), a line overwritten
// (a carriage return), and a command a tmux status line would run.
var hostile = map[string]string{
	"osc52": "clip\x1b]52;c;cm0gLXJmIH4=\x07",
	"title": "title\x1b]2;pwned\x1b\\",
	"csi":   "clear\x1b[2J\x1b[H",
	"c1":    "c1\u009b2J",
	"bidi":  "bidi\u202egnp.exe",
	"cr":    "shown\rEVIL",
	"tmux":  "tmux#(touch /tmp/pwned)#[fg=red]",
}

// plantHostile makes team crew whose every text a teammate controls holds
// text: the description, a member's name, a task's fields, a message's
// text and summary, a permission and a plan request's fields, an
// in-process teammate's log. It returns the member's name and the
// permission request's id.
func plantHostile(t *testing.T, text string) (root string, vars map[string]string, member, reqID string) {
	t.Helper()
	root, vars = ptRootVars(t)
	member = "m" + text
	reqID = "perm-" + text
	binRun(t, vars, "team-create", "crew", "--description", "d"+text).ok(t)
	tm := team.Team{Root: root, Name: "crew"}
	var cfg map[string]any
	readJSONFile(t, tm.ConfigPath(), &cfg)
	cfg["members"] = append(cfg["members"].([]any),
		map[string]any{"agentId": member + "@crew", "name": member, "joinedAt": 1, "tmuxPaneId": "%1" + text, "cwd": "/w" + text,
			"subscriptions": []any{}, "backendType": "tmux" + text, "model": "x" + text},
		map[string]any{"agentId": "alice@crew", "name": "alice", "joinedAt": 1, "tmuxPaneId": "in-process", "cwd": "/",
			"subscriptions": []any{}, "backendType": "in-process"})
	writeJSONFile(t, tm.ConfigPath(), cfg)

	// A second team whose folder's name is hostile: status and the status
	// line name every team.
	cfg["name"] = "x" + strings.ReplaceAll(text, "/", "_")
	cfg["members"] = cfg["members"].([]any)[:1]
	writeJSONFile(t, filepath.Join(root, "teams", cfg["name"].(string), "config.json"), cfg)

	tasks := tm.Tasks(lockfile.Options{}).Dir
	writeJSONFile(t, filepath.Join(tasks, "1.json"), map[string]any{"id": "1", "subject": "s" + text,
		"description": "line one\n" + text + "\nlast", "activeForm": "a" + text, "status": "in_progress",
		"owner": member, "blocks": []string{"2"}, "blockedBy": []string{}})
	writeJSONFile(t, filepath.Join(tasks, "2.json"), map[string]any{"id": "2", "subject": "t" + text,
		"description": "", "status": "pending", "blocks": []string{}, "blockedBy": []string{"1"}})
	if err := os.WriteFile(filepath.Join(tasks, "3.json"), []byte(`{"id":"3","subject":["`+text+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}

	binRun(t, vars, "send", "--team", "crew", "--to", "alice", "--from", member, "--summary", "u"+text, "hello\n"+text).ok(t)
	binRun(t, vars, "send", "--team", "crew", "--to", "team-lead", "--from", member, "--summary", "v"+text, "w"+text).ok(t)
	input, _ := json.Marshal(map[string]string{"command": "echo " + text, "description": "x" + text})
	perm, _ := json.Marshal(map[string]any{"type": "permission_request", "request_id": reqID, "agent_id": member,
		"tool_name": "Bash", "tool_use_id": "tu" + text, "description": "run" + text, "input": json.RawMessage(input),
		"permission_suggestions": []any{}})
	in := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{})
	for _, body := range []string{string(perm), planText("plan-"+text, member, "# plan\n"+text)} {
		if err := in.Send(t.Context(), mailbox.Message{From: member, Text: body, Timestamp: mailbox.Timestamp(time.Now())}); err != nil {
			t.Fatal(err)
		}
	}

	// A member that left keeps its log, and logs shows it.
	logs := ptyhost.PathsFor(tm.Dir(), "gone")
	if err := os.MkdirAll(logs.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logs.Log, []byte("output\r\n"+text+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, vars, member, reqID
}

// Every command that shows a text from the team's folder shows it without
// letting the terminal act on it, on stdout and stderr, and --json still
// decodes to the text as planted.
func TestHostileTextNeverReachesTheTerminalRaw(t *testing.T) {
	for name, text := range hostile {
		t.Run(name, func(t *testing.T) {
			_, vars, member, reqID := plantHostile(t, text)
			inTeam := []string{"--team", "crew"}
			for _, c := range []struct {
				args []string
				json bool // stdout is JSON holding text
			}{
				{[]string{"task", "list"}, false},
				{[]string{"task", "get", "1"}, false},
				{[]string{"task", "get", "2"}, false},
				{[]string{"task", "list", "--json"}, true},
				{[]string{"task", "get", "1", "--json"}, true},
				{[]string{"inbox", "--name", "alice"}, false},
				{[]string{"inbox", "--name", "alice", "--json"}, true},
				{[]string{"inbox", "--name", "team-lead"}, false},
				{[]string{"inbox", "--name", "team-lead", "--json"}, true},
				{[]string{"inbox", "--name", member}, false},
				{[]string{"inbox-watch", "--name", "alice", "--once"}, false},
				{[]string{"inbox-watch", "--name", "alice", "--once", "--json"}, true},
				// What --exec's command gets and prints: the sender's
				// shown name, the message as escaped JSON.
				{[]string{"inbox-watch", "--name", "alice", "--once", "--exec", `printf '%s\n' "$PANETEAM_FROM"; cat`}, false},
				{[]string{"status"}, false},
				{[]string{"status", "--json"}, true},
				{[]string{"status", "--format", "tmux"}, false},
				{[]string{"requests"}, false},
				{[]string{"requests", "--json"}, true},
				{[]string{"show", reqID}, false},
				{[]string{"show", reqID, "--json"}, true},
				{[]string{"show", "plan-" + text}, false},
				{[]string{"logs", "--name", "gone"}, false},
				{[]string{"logs", "--name", "gone", "--json"}, true},
				{[]string{"logs", "--name", member}, false},
				{[]string{"wait", "--timeout", "1ms"}, false},
			} {
				args := c.args
				if args[0] != "status" {
					args = append(args, inTeam...)
				}
				r := binRun(t, vars, args...)
				r.noRaw(t, args)
				if c.json {
					r.holds(t, args, text)
				}
				if c.json && r.code != 0 {
					t.Errorf("paneteam %q: exit %d: %q", args, r.code, r.stderr)
				}
				if args[0] == "status" && len(args) > 2 && args[2] == "tmux" {
					if strings.Contains(strings.ReplaceAll(r.stdout, "##", ""), "#(") {
						t.Errorf("status --format tmux lets tmux run a command: %q", r.stdout)
					}
				}
			}
		})
	}
}

// monitor prints each event as it happens, text and --json alike.
func TestMonitorShowsHostileTextVisibly(t *testing.T) {
	text := hostile["osc52"] + hostile["c1"] + hostile["bidi"] + hostile["cr"]
	_, vars, member, _ := plantHostile(t, text)
	for _, asJSON := range []bool{false, true} {
		args := []string{"monitor", "--team", "crew", "--poll", "100ms"}
		if asJSON {
			args = append(args, "--json")
		}
		cmd := exec.Command(testutil.Binary(t), args...)
		cmd.Env = varsEnv(vars)
		var stdout, stderr syncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, 10*time.Second, "monitor starts watching", func() bool { return strings.Contains(stderr.String(), "watching") })
		binRun(t, vars, "send", "--team", "crew", "--to", "alice", "--from", member, "--summary", "m"+text, "x").ok(t)
		binRun(t, vars, "task", "create", "--team", "crew", "--subject", "n"+text).ok(t)
		testutil.Eventually(t, 10*time.Second, "monitor prints the message and the task", func() bool {
			return strings.Count(stdout.String(), "\n") >= 2
		})
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		r := binResult{stdout: stdout.String(), stderr: stderr.String()}
		r.noRaw(t, args)
		if asJSON {
			for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				(&binResult{stdout: line}).holds(t, args, text)
			}
		}
	}
}

type binResult struct {
	stdout, stderr string
	code           int
}

// binRun runs the built paneteam with vars as its whole environment.
func binRun(t *testing.T, vars map[string]string, args ...string) binResult {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t), args...)
	cmd.Env = varsEnv(vars)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := binResult{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("paneteam %q: %v", args, err)
	}
	return r
}

func varsEnv(vars map[string]string) []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

func (r binResult) ok(t *testing.T) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// noRaw fails on anything a terminal would act on or not draw: C0
// controls but line break and tab, DEL, C1 controls, format characters
// (bidirectional overrides, isolates, zero-width), line separators, bytes
// that are not UTF-8.
func (r binResult) noRaw(t *testing.T, args []string) {
	t.Helper()
	for _, out := range []struct{ name, s string }{{"stdout", r.stdout}, {"stderr", r.stderr}} {
		for i, c := range out.s {
			bad := c == utf8.RuneError || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (c >= 0x80 && c < 0xa0) ||
				unicode.Is(unicode.Cf, c) || unicode.In(c, unicode.Zl, unicode.Zp)
			if bad {
				t.Errorf("paneteam %q: raw %U at %d on %s:\n%q", args, c, i, out.name, out.s)
				break
			}
		}
	}
}

// holds fails unless stdout is JSON and one of its strings holds text
// exactly as planted.
func (r *binResult) holds(t *testing.T, args []string, text string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Errorf("paneteam %q: not JSON (%v): %q", args, err, r.stdout)
		return
	}
	if !holdsString(v, text) {
		t.Errorf("paneteam %q: no string holds %q: %s", args, text, r.stdout)
	}
}

func holdsString(v any, text string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, text)
	case []any:
		for _, e := range v {
			if holdsString(e, text) {
				return true
			}
		}
	case map[string]any:
		for k, e := range v {
			if strings.Contains(k, text) || holdsString(e, text) {
				return true
			}
		}
	}
	return false
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer a child process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
