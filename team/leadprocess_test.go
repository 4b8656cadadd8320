package team

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/lockfile"
)

func configWith(t *testing.T, leadProcess string) *Config {
	t.Helper()
	cfg, err := parseConfig("", []byte(`{"name":"s","createdAt":1,"leadAgentId":"team-lead@s","leadProcess":`+leadProcess+`,"members":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Claude Code drops an invalid leadProcess on read (docs/PROTOCOL.md
// §3); so does paneteam, so the two agree on who leads.
func TestLeadProcessValidation(t *testing.T) {
	for _, tc := range []struct {
		json string
		ok   bool
	}{
		{`{"pid":42,"pidSpace":"h#pid:[1]","claimedAt":1767225600000,"procStart":"123"}`, true},
		{`{"pid":42,"pidSpace":"h","claimedAt":1767225600000.5}`, true},
		{`{"pid":4.2e1,"pidSpace":"","claimedAt":0}`, true},
		{`{"pid":-3,"pidSpace":"h","claimedAt":0}`, true}, // safe integer; never probed
		{`{"pid":42.5,"pidSpace":"h","claimedAt":0}`, false},
		{`{"pid":9007199254740992,"pidSpace":"h","claimedAt":0}`, false},
		{`{"pid":"42","pidSpace":"h","claimedAt":0}`, false},
		{`{"pidSpace":"h","claimedAt":0}`, false},
		{`{"pid":42,"pidSpace":7,"claimedAt":0}`, false},
		{`{"pid":42,"pidSpace":"h"}`, false},
		{`{"pid":42,"pidSpace":"h","claimedAt":"0"}`, false},
		{`{"pid":42,"pidSpace":"h","claimedAt":0,"procStart":null}`, false},
		{`{"pid":42,"pidSpace":"h","claimedAt":0,"procStart":123}`, false},
		{`null`, false},
		{`[42]`, false},
		{`"x"`, false},
	} {
		_, ok := configWith(t, tc.json).LeadProcess()
		if ok != tc.ok {
			t.Errorf("%s: valid=%v, want %v", tc.json, ok, tc.ok)
		}
	}
	if _, ok := (&Config{}).LeadProcess(); ok {
		t.Error("a config without leadProcess has one")
	}
}

func TestJudgeClaudeLead(t *testing.T) {
	const here = "host#pid:[4026531836]"
	claim := 1767225600000.0
	lp := func(start string) LeadProcess {
		l := LeadProcess{PID: 4242, PIDSpace: here, ClaimedAt: claim}
		if start != "" {
			l.ProcStart, l.HasProcStart = start, true
		}
		return l
	}
	running := proc.Facts{PID: 4242, StartTicks: "100", StartMillis: claim - 500, StartKnown: true}
	for _, tc := range []struct {
		name  string
		lp    LeadProcess
		f     proc.Facts
		state string
		other bool
	}{
		{"running, same start", lp("100"), running, LeadAlive, false},
		{"ESRCH", lp("100"), proc.Facts{PID: 4242, NoSuchProcess: true}, LeadDead, false},
		{"zombie", lp("100"), proc.Facts{PID: 4242, Zombie: true, StartTicks: "100"}, LeadDead, false},
		{"pid reused", lp("100"), proc.Facts{PID: 4242, StartTicks: "999"}, LeadDead, false},
		{"start unreadable", lp("100"), proc.Facts{PID: 4242}, LeadAlive, false},
		{"no procStart, started before claim", lp(""), running, LeadAlive, false},
		{"no procStart, started 2000 ms after claim", lp(""), proc.Facts{StartMillis: claim + 2000, StartKnown: true}, LeadAlive, false},
		{"no procStart, started 2001 ms after claim", lp(""), proc.Facts{StartMillis: claim + 2001, StartKnown: true}, LeadDead, false},
		{"no procStart, start unknown", lp(""), proc.Facts{}, LeadAlive, false},
		{"another pid space, even if gone here", LeadProcess{PID: 4242, PIDSpace: "other#pid:[1]", ClaimedAt: claim}, proc.Facts{NoSuchProcess: true}, LeadAlive, true},
	} {
		l := judgeClaudeLead(tc.lp, here, tc.f)
		if l.By != LedByClaude || l.State != tc.state || l.OtherPIDSpace != tc.other || l.Why == "" {
			t.Errorf("%s: %+v, want state %s other %v", tc.name, l, tc.state, tc.other)
		}
	}
}

// startSleep starts a process standing in for Claude Code's lead.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func leadJSON(pid int, space string, claimedAt int64, procStart *string) string {
	s := fmt.Sprintf(`{"pid":%d,"pidSpace":%q,"claimedAt":%d`, pid, space, claimedAt)
	if procStart != nil {
		s += fmt.Sprintf(`,"procStart":%q`, *procStart)
	}
	return s + "}"
}

func TestLeadOfRealProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("SKIPPED: no /proc")
	}
	live := startSleep(t)
	pid := live.Process.Pid
	start, err := proc.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	wrong := start + "1"
	here := proc.PIDSpace()

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, json, state string
	}{
		{"live lead", leadJSON(pid, here, now, &start), LeadAlive},
		{"live lead, no procStart, claimed after it started", leadJSON(pid, here, now+1000, nil), LeadAlive},
		{"pid now names a process started after the claim", leadJSON(pid, here, now-60_000, nil), LeadDead},
		{"wrong procStart", leadJSON(pid, here, now, &wrong), LeadDead},
		{"dead pid", leadJSON(dead.Process.Pid, here, now, &start), LeadDead},
		{"another pid space", leadJSON(dead.Process.Pid, "elsewhere#pid:[1]", now, &start), LeadAlive},
	} {
		l := LeadOf(configWith(t, tc.json))
		if l.State != tc.state || l.By != LedByClaude {
			t.Errorf("%s: %+v, want %s", tc.name, l, tc.state)
		}
	}

	// The same live lead, killed: now provably dead.
	l := LeadOf(configWith(t, leadJSON(pid, here, now, &start)))
	if l.State != LeadAlive {
		t.Fatalf("before kill: %+v", l)
	}
	live.Process.Signal(syscall.SIGKILL)
	live.Wait()
	if l := LeadOf(configWith(t, leadJSON(pid, here, now, &start))); l.State != LeadDead {
		t.Fatalf("after kill: %+v", l)
	}
}

// paneteam never writes leadProcess: a read-modify-write keeps Claude
// Code's bytes as they were, even when paneteam would call them invalid.
func TestUpdateKeepsLeadProcessBytes(t *testing.T) {
	for _, lp := range []string{
		`{"pid":42,"pidSpace":"h#pid:[1]","claimedAt":1767225600000,"procStart":"123"}`,
		`{"pid":"bad","extra":[1,2]}`,
	} {
		root := t.TempDir()
		tm := Team{Root: root, Name: "session-abcd1234"}
		os.MkdirAll(tm.Dir(), 0o700)
		body := `{"name":"session-abcd1234","createdAt":1,"leadAgentId":"team-lead@session-abcd1234","leadProcess":` + lp + `,"members":[]}`
		os.WriteFile(tm.ConfigPath(), []byte(body), 0o600)
		_, err := tm.Update(context.Background(), lockfile.Options{}, func(c *Config) error {
			c.Description = "touched"
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(tm.Dir(), "config.json"))
		compact := strings.Join(strings.Fields(string(b)), "")
		if !strings.Contains(compact, `"leadProcess":`+strings.Join(strings.Fields(lp), "")) {
			t.Errorf("leadProcess changed by an update:\n%s", b)
		}
	}
}

func TestRunBy(t *testing.T) {
	claude := configWith(t, `{"pid":42,"pidSpace":"h","claimedAt":0}`)
	ours := &Config{Paneteam: &TeamMeta{LeaderPID: 7}}
	for _, tc := range []struct {
		cfg  *Config
		m    Member
		want string
	}{
		{claude, Member{Name: LeadName, TmuxPaneID: "leader", BackendType: BackendInProcess}, RunByLead},
		{claude, Member{Name: "bob", TmuxPaneID: InProcessPaneID, BackendType: BackendInProcess}, RunByClaudeInProcess},
		{claude, Member{Name: "carol", TmuxPaneID: "%12", BackendType: BackendTmux}, RunByClaudePane},
		{claude, Member{Name: "dan", TmuxPaneID: "%3", BackendType: BackendTmux, Paneteam: &MemberMeta{TmuxSocket: "/s"}}, RunByPaneteam},
		{claude, Member{Name: "eve", TmuxPaneID: InProcessPaneID, BackendType: BackendInProcess, Paneteam: &MemberMeta{PID: 9}}, RunByPaneteam},
		{claude, Member{Name: "fay", TmuxPaneID: ""}, RunByUnknown},
		{ours, Member{Name: "gil", TmuxPaneID: "B9FAD42C-1D2E-4", BackendType: BackendITerm2}, RunByPaneteam},
	} {
		if got := tc.cfg.RunBy(&tc.m); got != tc.want {
			t.Errorf("%s: run by %s, want %s", tc.m.Name, got, tc.want)
		}
	}
	claude.Members = []Member{{Name: LeadName}, {Name: "bob", TmuxPaneID: InProcessPaneID}, {Name: "dan", Paneteam: &MemberMeta{}}}
	if got := claude.ClaudeTeammates(); len(got) != 1 || got[0] != "bob" {
		t.Errorf("Claude's teammates: %v", got)
	}
}
