package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// pt is paneteam's command line run in this process (testutil.CLI) with
// vars as its whole environment; commands that start paneteam again
// (teammates, hosts) start the test binary.
func pt(t testing.TB, vars map[string]string) testutil.CLI {
	t.Helper()
	exe := testutil.Binary(t)
	return testutil.CLI{Vars: vars, Main: func(ctx context.Context, inv testutil.Invocation) int {
		return Main(ctx, inv.Args, envOf(inv, exe))
	}}
}

// envOf is the Env a command sees for one run.
func envOf(inv testutil.Invocation, exe string) Env {
	return Env{Stdin: inv.Stdin, Stdout: inv.Stdout, Stderr: inv.Stderr, Vars: inv.Vars, StdoutTTY: inv.StdoutTTY, Exe: exe}
}

// ptRun runs paneteam in this process (pt) reading stdin, and returns
// stdout, stderr and the exit code.
func ptRun(t *testing.T, vars map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	r := pt(t, vars).Input(stdin).Run(t, args...)
	return r.Stdout, r.Stderr, r.Code
}

func ptRootVars(t *testing.T) (string, map[string]string) {
	root := testutil.Root(t)
	return root, map[string]string{"PANETEAM_ROOT": root, "HOME": t.TempDir()}
}

func TestTeamCreatePrintsFinalNameAndJSON(t *testing.T) {
	root, vars := ptRootVars(t)
	out, errs, code := ptRun(t, vars, "", "team-create", "Code Review", "--description", "d")
	if code != 0 || out != "code-review\n" {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
	out, _, code = ptRun(t, vars, "", "team-create", "--json", "code review")
	var got map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("code %d out %q", code, out)
	}
	want := map[string]string{
		"team_name":      "code-review-2",
		"team_file_path": filepath.Join(root, "teams", "code-review-2", "config.json"),
		"lead_agent_id":  "team-lead@code-review-2",
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestTeamCreateRecordsLeaderProcess(t *testing.T) {
	root, vars := ptRootVars(t)
	pid := os.Getpid()
	if _, errs, code := ptRun(t, vars, "", "team-create", "x", "--leader-pid", strconv.Itoa(pid)); code != 0 {
		t.Fatal(errs)
	}
	_, cfg, err := team.Open(root, "x")
	if err != nil {
		t.Fatal(err)
	}
	start, _ := proc.StartTime(pid)
	if cfg.Paneteam == nil || cfg.Paneteam.LeaderPID != pid || cfg.Paneteam.LeaderStart != start {
		t.Fatalf("leader not recorded: %+v", cfg.Paneteam)
	}
	if _, errs, code := ptRun(t, vars, "", "team-create", "y", "--leader-pid", "999999999"); code == 0 || !strings.Contains(errs, "--leader-pid") {
		t.Fatalf("a dead leader pid was accepted: %d %q", code, errs)
	}
}

func TestTeamCreateInsideTmuxRecordsThePaneProcess(t *testing.T) {
	srv := testutil.TmuxServer(t)
	pane := testutil.FirstPane(t, srv)
	root, vars := ptRootVars(t)
	for _, kv := range testutil.TmuxEnv(t, srv, pane) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	if _, errs, code := ptRun(t, vars, "", "team-create", "inside"); code != 0 {
		t.Fatal(errs)
	}
	_, cfg, _ := team.Open(root, "inside")
	want, _ := srv.PanePID(context.Background(), pane)
	if cfg.Paneteam == nil || strconv.Itoa(cfg.Paneteam.LeaderPID) != want {
		t.Fatalf("leader pid %+v, want the pane's process %s", cfg.Paneteam, want)
	}
}

func TestSendDeliversFromArgAndStdin(t *testing.T) {
	root, vars := ptRootVars(t)
	ptRun(t, vars, "", "team-create", "t")
	ptAddMember(t, root, "t", "alice")
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "alice", "hello there"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := ptRun(t, vars, "line one\nline two\n", "send", "--team", "t", "--to", "alice", "--summary", "two lines", "-"); code != 0 {
		t.Fatal(errs)
	}
	tm, _, _ := team.Open(root, "t")
	msgs, _ := mailbox.New(tm.InboxPath("alice"), lockOptsDefault()).ReadAll()
	if len(msgs) != 2 || msgs[0].Text != "hello there" || msgs[0].From != "team-lead" ||
		msgs[1].Text != "line one\nline two" || msgs[1].Summary != "two lines" || msgs[1].Read {
		t.Fatalf("inbox: %+v", msgs)
	}
}

func TestSendRefusesBadInputAndWritesNothing(t *testing.T) {
	root, vars := ptRootVars(t)
	ptRun(t, vars, "", "team-create", "t")
	ptAddMember(t, root, "t", "alice")
	cases := []struct {
		name    string
		args    []string
		stdin   string
		code    int
		mention string
	}{
		{"unknown recipient", []string{"send", "--team", "t", "--to", "mallory", "hi"}, "", 1, "alice"},
		{"path in recipient", []string{"send", "--team", "t", "--to", "../alice", "hi"}, "", 1, "not a member"},
		{"no recipient", []string{"send", "--team", "t", "hi"}, "", 2, "--to"},
		{"no team", []string{"send", "--to", "alice", "hi"}, "", 2, "--team"},
		{"unknown team", []string{"send", "--team", "nope", "--to", "alice", "hi"}, "", 1, "teams under"},
		{"empty stdin", []string{"send", "--team", "t", "--to", "alice"}, "", 2, "empty"},
		{"invalid utf-8", []string{"send", "--team", "t", "--to", "alice", "-"}, "bad \xff\xfe", 1, "UTF-8"},
	}
	for _, c := range cases {
		_, errs, code := ptRun(t, vars, c.stdin, c.args...)
		if code != c.code || !strings.Contains(errs, c.mention) {
			t.Errorf("%s: exit %d (want %d), stderr %q should mention %q", c.name, code, c.code, errs, c.mention)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, "teams", "t", "inboxes"))
	if len(entries) != 0 {
		t.Fatalf("refused sends left files: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(root, "teams", "alice.json")); err == nil {
		t.Fatal("a path in --to escaped the inbox folder")
	}
}

func TestFlagsMayFollowArguments(t *testing.T) {
	_, vars := ptRootVars(t)
	out, errs, code := ptRun(t, vars, "", "team-create", "late", "--json", "--description", "after the name")
	if code != 0 || !strings.Contains(out, `"team_name": "late"`) {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
}

func TestUnknownCommandIsAUsageError(t *testing.T) {
	_, vars := ptRootVars(t)
	if _, _, code := ptRun(t, vars, "", "team-create"); code != ExitUsage {
		t.Fatalf("missing NAME: exit %d, want %d", code, ExitUsage)
	}
	if _, _, code := ptRun(t, vars, "", "team-create", "--no-such-flag", "x"); code != ExitUsage {
		t.Fatalf("bad flag: exit %d, want %d", code, ExitUsage)
	}
	// urfave/cli itself returns success for these: a script with a typo
	// must not.
	for _, c := range []struct {
		args    []string
		unknown string
	}{
		{[]string{"sned", "hi"}, "sned"},
		{[]string{"sned", "--to", "x", "hi"}, "sned"},
		{[]string{"task", "no-such-subcommand"}, "no-such-subcommand"},
		{[]string{"help", "no-such-topic"}, "no-such-topic"},
	} {
		if _, errs, code := ptRun(t, vars, "", c.args...); code != ExitUsage || !strings.Contains(errs, strconv.Quote(c.unknown)) {
			t.Errorf("paneteam %s: exit %d (want %d), stderr %q should name %q", strings.Join(c.args, " "), code, ExitUsage, errs, c.unknown)
		}
	}
}

func ptAddMember(t *testing.T, root, teamName, name string) {
	t.Helper()
	tm, _, err := team.Open(root, teamName)
	if err != nil {
		t.Fatal(err)
	}
	teamtest.Add(t, tm, teamtest.Named(name)...)
}
