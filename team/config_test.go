package team

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestCreateWritesClaudeLayout(t *testing.T) {
	root := testutil.Root(t)
	now := time.UnixMilli(1771439979925)
	tm, _, err := Create(root, "Alpha", CreateOptions{Description: "review <pr> & ship", Cwd: "/src", LeaderPID: 4242, LeaderStart: "99", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if tm.Name != "alpha" {
		t.Fatalf("team name %q, want alpha", tm.Name)
	}
	got, err := os.ReadFile(tm.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "created_config.golden.json")
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("config.json differs from golden:\n%s\nwant:\n%s", got, want)
	}
	if js := testutil.JSStringify(t, got); !bytes.Equal(got, js) {
		t.Fatalf("JSON.stringify would write different bytes:\n%s\nvs ours:\n%s", js, got)
	}
	for _, d := range []string{tm.InboxDir(), tm.TasksDir()} {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a 0700 folder", d, err, st)
		}
	}
	st, _ := os.Stat(tm.ConfigPath())
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v, want 0600", st.Mode().Perm())
	}
}

func TestUpdateKeepsClaudeFieldsAndBytes(t *testing.T) {
	root := testutil.Root(t)
	src, err := os.ReadFile(filepath.Join("testdata", "claude_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	tm := Team{Root: root, Name: "alpha"}
	os.MkdirAll(tm.Dir(), 0o700)
	os.WriteFile(tm.ConfigPath(), src, 0o644)

	// A no-op update must reproduce Claude Code's file byte for byte.
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(*Config) error { return nil }); err != nil {
		t.Fatal(err)
	}
	same, _ := os.ReadFile(tm.ConfigPath())
	if !bytes.Equal(same, src) {
		t.Fatalf("round trip changed the file:\n%s", same)
	}

	cfg, err := tm.Update(context.Background(), lockfile.Options{}, func(c *Config) error {
		_, err := c.AddMember(Member{Name: "Researcher", Cwd: "/src"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	added := cfg.Members[2]
	if added.Name != "Researcher-2" || added.AgentID != "Researcher-2@alpha" || added.Color != "red" {
		t.Fatalf("added member %+v: want name Researcher-2 (case-insensitive de-dup) and red, the first colour no member wears (Claude's teammate has blue)", added)
	}
	got, _ := os.ReadFile(tm.ConfigPath())
	var raw map[string]any
	if err := json.Unmarshal(got, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["teamAllowedPaths"] == nil || raw["leadSessionId"] == nil {
		t.Fatalf("Claude Code's fields were lost:\n%s", got)
	}
	m1 := raw["members"].([]any)[1].(map[string]any)
	if m1["futureField"] == nil || m1["isActive"] != false || m1["planModeRequired"] != false {
		t.Fatalf("member fields were lost:\n%s", got)
	}
	if js := testutil.JSStringify(t, got); !bytes.Equal(got, js) {
		t.Fatalf("JSON.stringify would write different bytes:\n%s\nvs ours:\n%s", js, got)
	}
}

func TestCreateSuffixesTakenNames(t *testing.T) {
	root := testutil.Root(t)
	var names []string
	for i := 0; i < 3; i++ {
		tm, _, err := Create(root, "review", CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tm.Name)
	}
	want := []string{"review", "review-2", "review-3"}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("names %v, want %v", names, want)
		}
	}
}

func TestBadNamesStayInsideRoot(t *testing.T) {
	root := testutil.Root(t)
	for _, in := range []string{"../escape", "/etc/passwd", "a/../../b", "~root", "x\x00y"} {
		tm, _, err := Create(root, in, CreateOptions{})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		rel, err := filepath.Rel(root, tm.ConfigPath())
		if err != nil || rel != filepath.Join("teams", tm.Name, "config.json") {
			t.Fatalf("%q landed at %s", in, tm.ConfigPath())
		}
		for _, c := range tm.Name {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				t.Fatalf("%q gave unsafe name %q", in, tm.Name)
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(root))
	for _, e := range entries {
		if e.Name() == "escape" || e.Name() == "b" {
			t.Fatalf("something was written outside the root: %s", e.Name())
		}
	}
	for _, in := range []string{"", "   ", "..", "...", "//", "../.."} {
		if _, _, err := Create(root, in, CreateOptions{}); err == nil {
			t.Fatalf("%q accepted; want a clear refusal", in)
		}
	}
}

func TestOpenUsesClaudeSanitisersPerFileKind(t *testing.T) {
	root := testutil.Root(t)
	// A team Claude Code created as "My Team": config under my-team, inboxes
	// and tasks under My-Team.
	tm := Team{Root: root, Name: "My Team"}
	os.MkdirAll(tm.Dir(), 0o700)
	os.WriteFile(tm.ConfigPath(), []byte(`{"name":"My Team","createdAt":1,"leadAgentId":"team-lead@My Team","members":[]}`), 0o600)
	got, _, err := Open(root, "my team")
	if err != nil {
		t.Fatal(err)
	}
	if got.Dir() != filepath.Join(root, "teams", "my-team") ||
		got.InboxPath("a.b") != filepath.Join(root, "teams", "My-Team", "inboxes", "a-b.json") ||
		got.TasksDir() != filepath.Join(root, "tasks", "My-Team") {
		t.Fatalf("paths: %s %s %s", got.Dir(), got.InboxPath("a.b"), got.TasksDir())
	}
	if _, _, err := Open(root, "nope"); err == nil || !bytes.Contains([]byte(err.Error()), []byte("my-team")) {
		t.Fatalf("unknown team error should list existing teams, got %v", err)
	}
}

func TestLoadRefusesGarbage(t *testing.T) {
	root := testutil.Root(t)
	tm := Team{Root: root, Name: "x"}
	os.MkdirAll(tm.Dir(), 0o700)
	os.WriteFile(tm.ConfigPath(), []byte(`{"name":`), 0o600)
	if _, _, err := Open(root, "x"); err == nil {
		t.Fatal("a torn config was accepted")
	}
	_, err := tm.Update(context.Background(), lockfile.Options{}, func(*Config) error { return nil })
	if err == nil {
		t.Fatal("update of an unparsable config succeeded")
	}
	b, _ := os.ReadFile(tm.ConfigPath())
	if string(b) != `{"name":` {
		t.Fatalf("unparsable config was overwritten: %q", b)
	}
}

func TestRemoveMemberTakesItsHiddenPane(t *testing.T) {
	cfg := &Config{Name: "t", HiddenPaneIDs: []string{"%1", "%2"}}
	cfg.AddMember(Member{Name: "a", TmuxPaneID: "%1"})
	cfg.AddMember(Member{Name: "b", TmuxPaneID: "%2"})
	if !cfg.RemoveMember("A") {
		t.Fatal("member not found")
	}
	if len(cfg.HiddenPaneIDs) != 1 || cfg.HiddenPaneIDs[0] != "%2" || cfg.Member("a") != nil {
		t.Fatalf("after removing a: members %v, hidden %v", cfg.MemberNames(), cfg.HiddenPaneIDs)
	}
}

// Claude Code writes config.json in place under its lock: open, write,
// truncate. A reader between the write and the truncate sees the new text
// followed by the tail of the old one; on a busy machine the writer can be
// held there for longer than a reader's quick retries. Load must still
// return the file as the writer leaves it, never "does not parse".
func TestLoadWaitsOutAnInPlaceWrite(t *testing.T) {
	root := testutil.Root(t)
	tm := Team{Root: root, Name: "x"}
	os.MkdirAll(tm.Dir(), 0o700)
	long := `{"name":"x","createdAt":1,"leadAgentId":"team-lead@x","members":[{"agentId":"a@x","name":"a","isActive":false}]}`
	short := `{"name":"x","createdAt":1,"leadAgentId":"team-lead@x","members":[{"agentId":"a@x","name":"a","isActive":true}]}`
	if err := os.WriteFile(tm.ConfigPath(), []byte(long), 0o600); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockfile.Lock(context.Background(), tm.ConfigPath(), lockfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(tm.ConfigPath(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(short), 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(400 * time.Millisecond) // held from its truncate
		f.Truncate(int64(len(short)))
		f.Close()
		unlock()
	}()
	cfg, err := Load(tm.ConfigPath())
	<-done
	if err != nil {
		t.Fatalf("a config mid-write was taken for a broken one: %v", err)
	}
	if m := cfg.Member("a"); m == nil || m.IsActive == nil || !*m.IsActive {
		t.Fatalf("Load returned %+v, not the text the writer left", cfg.Members)
	}
}

// A config.json is the team of the folder it is in: one whose name was
// rewritten to another team's is refused by every reader and writer, so
// that nothing derived from the name (inboxes, agent ids, panes) can
// point at the other team. Claude Code's own spelling of the folder's
// name ("My Team" in teams/my-team) is the team's.
func TestConfigNamingAnotherTeamIsRefused(t *testing.T) {
	root := testutil.Root(t)
	mine := Team{Root: root, Name: "my-team"}
	os.MkdirAll(mine.Dir(), 0o700)
	ok := `{"name":"My Team","createdAt":1,"leadAgentId":"team-lead@My Team","members":[]}`
	if err := os.WriteFile(mine.ConfigPath(), []byte(ok), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, cfg, err := Open(root, "my-team"); err != nil || cfg.Name != "My Team" {
		t.Fatalf("Open of a team Claude Code named %q: %v", "My Team", err)
	}

	forged := `{"name":"other","createdAt":1,"leadAgentId":"team-lead@other","members":[]}`
	if err := os.WriteFile(mine.ConfigPath(), []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(mine.ConfigPath()); !errors.Is(err, ErrMisplaced) || !strings.Contains(err.Error(), `set "name" back`) {
		t.Errorf("Load of a config naming another team: %v, want ErrMisplaced naming the fix", err)
	}
	if _, _, err := Open(root, "my-team"); !errors.Is(err, ErrMisplaced) {
		t.Errorf("Open of a config naming another team: %v, want ErrMisplaced", err)
	}
	_, err := mine.Update(context.Background(), lockfile.Options{}, func(c *Config) error {
		c.Description = "changed"
		return nil
	})
	if !errors.Is(err, ErrMisplaced) {
		t.Errorf("Update of a config naming another team: %v, want ErrMisplaced", err)
	}
	if b, _ := os.ReadFile(mine.ConfigPath()); string(b) != forged {
		t.Errorf("the misnamed config.json was rewritten:\n%s", b)
	}
}

// TestLeadAgentName: the lead's inbox is the one leadAgentId names, as
// Claude Code writes idle notices there; a config without one is led
// by team-lead.
func TestLeadAgentName(t *testing.T) {
	for id, want := range map[string]string{
		"team-lead@crew": "team-lead",
		"boss@crew":      "boss",
		"@crew":          LeadName,
		"boss":           LeadName,
		"":               LeadName,
	} {
		if got := (&Config{LeadAgentID: id}).LeadAgentName(); got != want {
			t.Errorf("leadAgentId %q: lead %q, want %q", id, got, want)
		}
	}
	if got := (*Config)(nil).LeadAgentName(); got != LeadName {
		t.Errorf("no config: lead %q, want %q", got, LeadName)
	}
}
