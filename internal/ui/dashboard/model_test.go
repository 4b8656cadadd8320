package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/team"
)

// fake records what the dashboard asked for.
type fake struct {
	snap    *teamwatch.Snapshot
	reqs    []approval.Request
	calls   []string
	answers []approval.Decision
	work    Work
	diff    land.Diff
	landErr error
}

func (f *fake) Refresh(context.Context) (*teamwatch.Snapshot, []approval.Request, error) {
	return f.snap, f.reqs, nil
}
func (f *fake) Requests(context.Context) ([]approval.Request, error) { return f.reqs, nil }
func (f *fake) Answer(_ context.Context, r approval.Request, d approval.Decision) error {
	f.calls = append(f.calls, "answer "+r.ID)
	f.answers = append(f.answers, d)
	f.reqs = f.reqs[1:]
	return nil
}
func (f *fake) Send(_ context.Context, to, text string) error {
	f.calls = append(f.calls, "send "+to+" "+text)
	return nil
}
func (f *fake) ToggleHidden(_ context.Context, name string) (bool, error) {
	f.calls = append(f.calls, "hide "+name)
	return true, nil
}
func (f *fake) Stop(_ context.Context, name string) (string, error) {
	f.calls = append(f.calls, "stop "+name)
	return name + " stopped", nil
}
func (f *fake) Jump(_ context.Context, name string) error {
	f.calls = append(f.calls, "jump "+name)
	return nil
}

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func perm(id, from, cmd string, suggestions string) approval.Request {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return approval.Request{ID: id, Kind: approval.KindPermission, From: from, ToolName: "Bash", Input: in,
		Time: now.Add(-5 * time.Minute), Suggestions: json.RawMessage(suggestions)}
}

func team3() *teamwatch.Snapshot {
	return &teamwatch.Snapshot{Team: "crew", Members: []teamwatch.Member{
		{Name: "team-lead", State: teamwatch.StateActive},
		{Name: "alice", State: teamwatch.StateNeedsYou, Backend: "tmux", Pane: "alive", Waiting: 1, NeedsYou: true},
		{Name: "bob", State: teamwatch.StateIdle, Backend: "tmux", Pane: "alive"},
	}, Tasks: []teamwatch.Task{{ID: "1", Subject: "Fix login", Status: "pending", Blocks: []string{"2"}}}}
}

// start builds a model over f and feeds it its first reading.
func start(t *testing.T, f *fake, opts Options) *Model {
	t.Helper()
	opts.Team = "crew"
	opts.Now = func() time.Time { return now }
	m := New(context.Background(), f, opts)
	drive(m, m.refresh())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// drive runs cmd and feeds what it returns back, as Bubble Tea would; it
// reports whether the model asked to quit.
func drive(m *Model, cmd tea.Cmd) bool {
	for cmd != nil {
		msg := cmd()
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
		_, cmd = m.Update(msg)
	}
	return false
}

func press(m *Model, keys ...string) bool {
	quit := false
	for _, k := range keys {
		// What Bubble Tea v2 decodes from the terminal's bytes for each.
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case " ":
			msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		default:
			r := []rune(k)
			msg = tea.KeyPressMsg{Code: r[0], Text: k}
			if len(r) > 1 {
				msg.Code = tea.KeyExtended
			}
		}
		_, cmd := m.Update(msg)
		quit = drive(m, cmd) || quit
	}
	return quit
}

func TestDenyAsksForFeedbackAndSendsIt(t *testing.T) {
	f := &fake{snap: team3(), reqs: []approval.Request{perm("perm-1-a", "alice", "make", "[]")}}
	m := start(t, f, Options{})
	press(m, "d", "d") // the first shows the request whole
	if len(f.calls) != 0 || !strings.Contains(m.screen(), "feedback (optional)") {
		t.Fatalf("d answered before asking for feedback: %v\n%s", f.calls, m.screen())
	}
	press(m, "u", "s", "e", " ", "m", "a", "k", "e", "enter")
	if len(f.answers) != 1 || f.answers[0].Approve || f.answers[0].Feedback != "use make" {
		t.Fatalf("answers %+v", f.answers)
	}
}

func TestEscCancelsADenial(t *testing.T) {
	f := &fake{snap: team3(), reqs: []approval.Request{perm("perm-1-a", "alice", "make", "[]")}}
	m := start(t, f, Options{})
	press(m, "d", "d", "x", "esc")
	if len(f.calls) != 0 {
		t.Fatalf("cancelled denial was sent: %v", f.calls)
	}
}

func TestApproveAlwaysOnlyWhenOffered(t *testing.T) {
	f := &fake{snap: team3(), reqs: []approval.Request{perm("perm-1-a", "alice", "make", "[]")}}
	m := start(t, f, Options{})
	press(m, "A", "A")
	if len(f.calls) != 0 || !strings.Contains(m.screen(), "offers no") {
		t.Fatalf("A without a suggested rule: %v\n%s", f.calls, m.screen())
	}
	rule := `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make:*"}],"behavior":"allow","destination":"localSettings"}]`
	f.reqs = []approval.Request{perm("perm-1-a", "alice", "make", rule)}
	drive(m, m.refresh())
	press(m, "A")
	if len(f.answers) != 1 || !f.answers[0].Approve || !f.answers[0].Always {
		t.Fatalf("A with a suggested rule: %+v", f.answers)
	}
}

func TestStopAsksFirst(t *testing.T) {
	f := &fake{snap: team3()}
	m := start(t, f, Options{})
	press(m, "down", "s")
	if !strings.Contains(m.screen(), "stop alice?") {
		t.Fatalf("no confirmation:\n%s", m.screen())
	}
	press(m, "n")
	if len(f.calls) != 0 {
		t.Fatalf("stopped without a yes: %v", f.calls)
	}
	press(m, "s", "y")
	if fmt.Sprint(f.calls) != "[stop alice]" {
		t.Fatalf("calls %v", f.calls)
	}
}

func TestMemberKeysActOnTheSelectedMember(t *testing.T) {
	f := &fake{snap: team3()}
	m := start(t, f, Options{})
	press(m, "down", "down", "h", "g", "m", "h", "i", "enter")
	if fmt.Sprint(f.calls) != "[hide bob jump bob send bob hi]" {
		t.Fatalf("calls %v", f.calls)
	}
}

// TestAPasteGoesIntoTheOpenInputOnly: Bubble Tea v2 hands a bracketed
// paste over as one message, not as keys; it lands in the message being
// typed (one line: its line breaks dropped), and a paste while no input
// is open is not read as keys.
func TestAPasteGoesIntoTheOpenInputOnly(t *testing.T) {
	f := &fake{snap: team3()}
	m := start(t, f, Options{})
	m.Update(tea.PasteMsg{Content: "sq"}) // s would stop, q would quit
	press(m, "down", "down", "m", "x")
	m.Update(tea.PasteMsg{Content: "one\ntwo three"})
	press(m, "enter")
	if fmt.Sprint(f.calls) != "[send bob xonetwo three]" {
		t.Fatalf("calls %v", f.calls)
	}
}

func TestTeammateTextIsMadeVisible(t *testing.T) {
	s := team3()
	s.Members[2].Name = "bob\x1b[2J"
	s.Tasks[0].Subject = "fix\x1b]0;pwned\x07 it"
	f := &fake{snap: s, reqs: []approval.Request{perm("perm-1-a", "alice", "echo \x1b[31mred\r\u202egnp.exe", "[]")}}
	m := start(t, f, Options{})
	views := []string{m.screen()}
	press(m, "tab", "tab", "enter")
	views = append(views, m.screen())
	for _, v := range views {
		if strings.ContainsAny(v, "\x1b\x07\r\u202e") {
			t.Fatalf("raw control characters reach the screen: %q", v)
		}
	}
	if !strings.Contains(views[0], `$'bob\x1b[2J'`) || !strings.Contains(views[0], `$'fix\x1b]0;pwned\x07 it'`) ||
		!strings.Contains(views[1], `red\r\u202egnp.exe`) {
		t.Fatalf("escapes not shown as text:\n%s\n%s", views[0], views[1])
	}
}

// A command holding a real newline and one holding a typed backslash-n
// are listed differently, as are a real tab and a typed backslash-t.
func TestRequestsListTellsRealEscapesFromTypedOnes(t *testing.T) {
	f := &fake{snap: team3(), reqs: []approval.Request{
		perm("perm-1-a", "alice", "echo a\nb", "[]"), perm("perm-2-a", "alice", `echo a\nb`, "[]"),
		perm("perm-3-a", "alice", "x\ty", "[]"), perm("perm-4-a", "alice", `x\ty`, "[]"),
	}}
	m := start(t, f, Options{})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	v := m.screen()
	for _, want := range []string{`Bash: $'echo a\nb'`, `Bash: echo a\nb`, `Bash: $'x\ty'`, `Bash: x\ty`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\t") {
		t.Errorf("a raw tab reached the screen:\n%q", v)
	}
}

func TestLayoutFitsEverySize(t *testing.T) {
	s := team3()
	for i := range 30 {
		s.Members = append(s.Members, teamwatch.Member{Name: fmt.Sprintf("名前-%d-a-very-long-teammate-name", i), State: teamwatch.StateGone, Unread: 12345})
	}
	var reqs []approval.Request
	for i := range 10 {
		reqs = append(reqs, perm(fmt.Sprintf("perm-17672256000%02d-abcdefg", i), "alice", strings.Repeat("x ", 200), "[]"))
	}
	f := &fake{snap: s, reqs: reqs}
	for _, review := range []bool{false, true} {
		for _, size := range [][2]int{{80, 24}, {81, 25}, {120, 40}, {200, 60}, {40, 10}} {
			for _, keys := range [][]string{nil, {"tab", "tab", "enter"}, {"?"}, {"d"}} {
				m := start(t, f, Options{Review: review, Color: true})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				press(m, keys...)
				view := m.screen()
				lines := strings.Split(view, "\n")
				if !review && keys == nil && size[0] <= 81 && size[1] >= 24 && strings.Count(view, "more below") != 2 {
					// Members and requests overflow: each says so on its last row.
					t.Fatalf("%dx%d: a section's last row is lost:\n%s", size[0], size[1], view)
				}
				if len(lines) != size[1] {
					t.Fatalf("%dx%d review=%v after %v: %d lines", size[0], size[1], review, keys, len(lines))
				}
				for i, l := range lines {
					if w := ansi.StringWidthWc(l); w > size[0] {
						t.Fatalf("%dx%d review=%v after %v: line %d is %d wide: %q", size[0], size[1], review, keys, i, w, l)
					}
				}
			}
		}
	}
}

func TestNoColorViewHasNoEscapes(t *testing.T) {
	f := &fake{snap: team3(), reqs: []approval.Request{perm("perm-1-a", "alice", "make", "[]")}}
	if v := start(t, f, Options{}).screen(); strings.Contains(v, "\x1b") {
		t.Fatalf("escapes without colour: %q", v)
	}
	if v := start(t, f, Options{Color: true}).screen(); !strings.Contains(v, "\x1b[") {
		t.Fatalf("no styling with colour, so the check above proves nothing: %q", v)
	}
}

func TestReviewWaitsForAKeyWhenNoneIsWaiting(t *testing.T) {
	f := &fake{snap: team3(), reqs: []approval.Request{perm("perm-1-a", "alice", "make", "[]")}}
	m := start(t, f, Options{Review: true})
	if !strings.Contains(m.screen(), "request 1 of 1") {
		t.Fatalf("review:\n%s", m.screen())
	}
	if press(m, "a") {
		t.Fatal("the popup quit right after the last answer, before saying so")
	}
	if !strings.Contains(m.screen(), "No requests are waiting") || !strings.Contains(m.screen(), "Press any key") {
		t.Fatalf("review with none waiting:\n%s", m.screen())
	}
	if !press(m, "x") {
		t.Fatal("a key did not close it")
	}
}

func TestTeamDeletedQuitsSayingSo(t *testing.T) {
	f := &fake{snap: team3()}
	m := start(t, f, Options{})
	_, cmd := m.Update(dataMsg{err: fmt.Errorf("team crew: %w", teamwatch.ErrTeamGone)})
	if cmd == nil || !strings.Contains(m.Final, "deleted") {
		t.Fatalf("cmd %v final %q", cmd, m.Final)
	}
}

type refusing struct{ fake }

func (r *refusing) Answer(context.Context, approval.Request, approval.Decision) error {
	return fmt.Errorf("team crew: a Claude Code process leads this team (config.json records its leadProcess): " +
		"answer perm-1767225600000-abcdefg in that Claude Code session")
}

func TestARefusalIsShownWhole(t *testing.T) {
	f := &refusing{fake{snap: team3(), reqs: []approval.Request{perm("perm-1767225600000-abcdefg", "alice", "make", "[]")}}}
	m := New(context.Background(), f, Options{Team: "crew", Now: func() time.Time { return now }})
	drive(m, m.refresh())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "a", "a")
	v := m.screen()
	if !strings.Contains(strings.ReplaceAll(v, "\n", ""), "answer perm-1767225600000-abcdefg in that Claude Code session") {
		t.Fatalf("refusal cut:\n%s", v)
	}
	if n := len(strings.Split(v, "\n")); n != 24 {
		t.Fatalf("%d lines", n)
	}
}

// TestApprovalOnlyOfWhatWasShownWhole: from the list, a key first shows
// the request whole and answers nothing; if that request stops waiting
// while it is read, a key answers nothing in its place.
func TestApprovalOnlyOfWhatWasShownWhole(t *testing.T) {
	long := "make test && " + strings.Repeat("x", 200) + " && rm -rf ~/precious"
	f := &fake{snap: team3(), reqs: []approval.Request{perm("perm-1-a", "alice", long, "[]"), perm("perm-2-b", "bob", "ls", "[]")}}
	m := start(t, f, Options{})
	press(m, "a")
	if len(f.answers) != 0 {
		t.Fatalf("a in the list answered at once: %+v", f.answers)
	}
	if v := strings.ReplaceAll(m.screen(), "\n", ""); !strings.Contains(v, "rm -rf ~/precious") {
		t.Fatalf("a did not show the request whole:\n%s", m.screen())
	}
	f.reqs = f.reqs[1:] // alice's request answered elsewhere meanwhile
	drive(m, m.refresh())
	press(m, "a")
	if len(f.answers) != 0 {
		t.Fatalf("a answered another request in place of the one shown: %+v", f.answers)
	}
	if !strings.Contains(m.screen(), "nothing was answered") {
		t.Fatalf("no word that nothing was answered:\n%s", m.screen())
	}
}

// A teammate on another machine reads alice@buildbox in the members'
// list, its columns still aligned with the local teammates'.
func TestRemoteTeammateShowsItsHost(t *testing.T) {
	s := team3()
	s.Members[1].Host = "buildbox.example"
	m := start(t, &fake{snap: s}, Options{})
	v := ansi.Strip(m.screen())
	var alice, bob string
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "alice") {
			alice = l
		}
		if strings.Contains(l, "bob") {
			bob = l
		}
	}
	if !strings.Contains(alice, "alice@buildbox.example ") {
		t.Fatalf("the remote teammate's row does not show its host:\n%s", v)
	}
	if strings.Contains(bob, "@") {
		t.Fatalf("a local teammate's row shows a host:\n%s", v)
	}
	if strings.Index(alice, "! NEEDS YOU") != strings.Index(bob, "- idle") {
		t.Fatalf("the state columns do not line up:\n%s", v)
	}
}

// TestEachMemberSaysWhatItRuns: a member's row names the CLI it runs
// (a dash for a plain command) in a column of its own, still fitting 80
// columns with a request waiting, and its details say who started it.
func TestEachMemberSaysWhatItRuns(t *testing.T) {
	s := team3()
	s.Members[1].CLI, s.Members[1].RunBy = "opencode", team.RunByPaneteam
	s.Members[2].CLI, s.Members[2].RunBy = "codex", team.RunByClaudePane
	m := start(t, &fake{snap: s}, Options{})
	rows := map[string]string{}
	for _, l := range strings.Split(ansi.Strip(m.screen()), "\n") {
		for _, n := range []string{"team-lead", "alice", "bob"} {
			if strings.Contains(l, n+" ") {
				rows[n] = l
			}
		}
	}
	if col := strings.Index(rows["alice"], "opencode"); col < 0 || strings.Index(rows["bob"], "codex") != col || rows["team-lead"][col] != '-' {
		t.Fatalf("the CLI column does not line up:\n%s\n%s\n%s", rows["team-lead"], rows["alice"], rows["bob"])
	}
	if !strings.Contains(rows["alice"], "waiting 1") {
		t.Errorf("alice's request is cut off at 80 columns: %q", rows["alice"])
	}
	press(m, "down", "down", "enter")
	if v := ansi.Strip(m.screen()); !strings.Contains(v, "runs: codex (Claude's, pane)") {
		t.Errorf("bob's details do not say what runs him:\n%s", v)
	}
}

// TestAMemberShowsItsBranch: the details of a member with a worktree of
// its own name its branch; one without says nothing of a branch.
func TestAMemberShowsItsBranch(t *testing.T) {
	s := team3()
	s.Members[2].Branch = "paneteam/crew/bob"
	m := start(t, &fake{snap: s}, Options{})
	press(m, "down", "down", "enter")
	if v := ansi.Strip(m.screen()); !strings.Contains(v, "branch: paneteam/crew/bob") {
		t.Errorf("bob's details do not name his branch:\n%s", v)
	}
	m = start(t, &fake{snap: team3()}, Options{})
	press(m, "down", "down", "enter")
	if v := ansi.Strip(m.screen()); strings.Contains(v, "branch:") {
		t.Errorf("bob's details without a worktree name a branch:\n%s", v)
	}
}

// TestHeaderSaysAResumableTeamAndHowToBringItBack: a team whose lead and
// panes went away says so first in the header, with the command.
func TestHeaderSaysAResumableTeamAndHowToBringItBack(t *testing.T) {
	snap := team3()
	snap.Resumable = &teamwatch.Resumable{Members: []string{"alice", "bob"}, Command: "paneteam resume --team crew"}
	m := start(t, &fake{snap: snap}, Options{})
	if h := ansi.Strip(m.header(80)); !strings.HasPrefix(strings.TrimPrefix(h, "! "), "RESUMABLE (paneteam resume --team crew)") {
		t.Errorf("header %q, want it to start with how to resume", h)
	}
	m = start(t, &fake{snap: team3()}, Options{})
	if h := ansi.Strip(m.header(80)); strings.Contains(h, "RESUMABLE") {
		t.Errorf("a live team's header says %q", h)
	}
}

func (f *fake) Review(context.Context) (Work, error) {
	f.calls = append(f.calls, "review")
	return f.work, nil
}
func (f *fake) Diff(_ context.Context, name string) (land.Diff, error) {
	f.calls = append(f.calls, "diff "+name)
	return f.diff, nil
}
func (f *fake) Comment(_ context.Context, name string, c land.Comment) error {
	f.calls = append(f.calls, fmt.Sprintf("comment %s %s:%d %s", name, c.File, c.Line, c.Text))
	return nil
}
func (f *fake) Land(_ context.Context, name string) (string, error) {
	f.calls = append(f.calls, "land "+name)
	return "landed " + name + "\nundo: git reset", f.landErr
}
