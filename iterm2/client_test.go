package iterm2_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

var flavors = []it2test.Flavor{it2test.Python, it2test.Swift}

func client(f *it2test.Fake) iterm2.Client { return iterm2.Client{Bin: f.Bin} }

func TestSplitRunNameClose(t *testing.T) {
	for _, fl := range flavors {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := it2test.New(t, fl)
			c := client(f)

			id, err := c.Split(ctx, iterm2.SplitOptions{Target: f.LeadID, Vertical: true})
			if err != nil {
				t.Fatal(err)
			}
			if !iterm2.ValidID(id) {
				t.Fatalf("split returned %q, not a session id", id)
			}
			s := f.Session(id)
			if s == nil || s.SplitFrom != f.LeadID || !s.Vertical {
				t.Fatalf("new session %+v: want a vertical split of the lead %s", s, f.LeadID)
			}
			if err := c.SetName(ctx, id, "researcher"); err != nil {
				t.Fatal(err)
			}
			if err := c.Run(ctx, id, "echo hi"); err != nil {
				t.Fatal(err)
			}
			s = f.Session(id)
			if s.Name != "researcher" || len(s.Typed) != 1 || s.Typed[0] != "echo hi\r" {
				t.Fatalf("session after set-name and run: name %q typed %q", s.Name, s.Typed)
			}
			alive, err := c.Has(ctx, id)
			if err != nil || !alive {
				t.Fatalf("Has(new session) = %v, %v; want true", alive, err)
			}
			if err := c.Close(ctx, id); err != nil {
				t.Fatal(err)
			}
			if alive, _ := c.Has(ctx, id); alive {
				t.Fatal("session still listed after close")
			}
			// Closing again: the session is gone, said the same way for
			// both flavours.
			if err := c.Close(ctx, id); !errors.Is(err, iterm2.ErrSessionNotFound) {
				t.Fatalf("second close: %v; want ErrSessionNotFound", err)
			}
			want := []string{
				"session split -v -s " + f.LeadID,
				"session set-name researcher -s " + id,
				"session run -s " + id + " echo hi",
				"session list --json",
				"session close -f -s " + id,
				"session list --json",
				"session close -f -s " + id,
			}
			if got := f.Argvs(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("it2 calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestDeadSessionErrors(t *testing.T) {
	for _, fl := range flavors {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := it2test.New(t, fl)
			c := client(f)
			id, err := c.Split(ctx, iterm2.SplitOptions{Target: f.LeadID})
			if err != nil {
				t.Fatal(err)
			}
			f.CloseSession(id) // the user closes the pane between two calls
			_, err = c.Split(ctx, iterm2.SplitOptions{Target: id})
			if !errors.Is(err, iterm2.ErrSessionNotFound) {
				t.Fatalf("split of a closed session: %v; want ErrSessionNotFound", err)
			}
			if !strings.Contains(err.Error(), "Session") || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("error %q does not carry it2's message", err)
			}
			if err := c.Run(ctx, id, "true"); !errors.Is(err, iterm2.ErrSessionNotFound) {
				t.Fatalf("run in a closed session: %v; want ErrSessionNotFound", err)
			}
		})
	}
}

func TestAPIOff(t *testing.T) {
	for _, fl := range flavors {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := it2test.New(t, fl)
			f.Change(func(st *it2test.State) { st.APIOff = true })
			c := client(f)
			// --version still succeeds: it cannot be the check.
			if out, err := exec.Command(f.Bin, "--version").Output(); err != nil || len(out) == 0 {
				t.Fatalf("it2 --version with the API off: %q, %v; want success", out, err)
			}
			if _, err := c.Sessions(ctx); !errors.Is(err, iterm2.ErrAPIUnavailable) {
				t.Fatalf("list with the API off: %v; want ErrAPIUnavailable", err)
			}
			_, err := c.Split(ctx, iterm2.SplitOptions{Target: f.LeadID, Vertical: true})
			if !errors.Is(err, iterm2.ErrAPIUnavailable) {
				t.Fatalf("split with the API off: %v; want ErrAPIUnavailable", err)
			}
			if errors.Is(err, iterm2.ErrSessionNotFound) {
				t.Fatal("API off must not look like a dead session (that would start a retry chain)")
			}
		})
	}
}

func TestOtherSplitFailureIsNotDeadSession(t *testing.T) {
	for _, fl := range flavors {
		t.Run(string(fl), func(t *testing.T) {
			t.Parallel()
			f := it2test.New(t, fl)
			f.Change(func(st *it2test.State) { st.FailSplit = "Session is too small to split" })
			_, err := client(f).Split(context.Background(), iterm2.SplitOptions{Target: f.LeadID})
			if err == nil || errors.Is(err, iterm2.ErrSessionNotFound) || errors.Is(err, iterm2.ErrAPIUnavailable) {
				t.Fatalf("split of a too-small pane: %v; want a plain failure", err)
			}
			if !strings.Contains(err.Error(), "too small") {
				t.Fatalf("error %q hides it2's reason", err)
			}
		})
	}
}

func TestNotInstalled(t *testing.T) {
	c := iterm2.Client{Bin: t.TempDir() + "/no-it2-here"}
	if _, err := c.Sessions(context.Background()); !errors.Is(err, iterm2.ErrNotInstalled) {
		t.Fatalf("missing it2: %v; want ErrNotInstalled", err)
	}
}

// The fake is only worth something if it keeps the real it2's traps: the
// table cuts ids short when piped, and close without -f fails without a
// terminal.
func TestFakeKeepsTheRealTraps(t *testing.T) {
	f := it2test.New(t, it2test.Python)
	out, err := exec.Command(f.Bin, "session", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	table := string(out)
	if strings.Contains(table, f.LeadID) || !strings.Contains(table, f.LeadID[:15]+"…") {
		t.Fatalf("piped table should cut the id to %q:\n%s", f.LeadID[:15]+"…", table)
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Fatalf("piped table line is %d columns wide, want at most 80: %q", n, line)
		}
	}
	// The JSON form has exactly the real it2's keys, none of the fake's
	// own record.
	out, err = exec.Command(f.Bin, "session", "list", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) != 1 {
		t.Fatalf("session list --json: %v\n%s", err, out)
	}
	var keys []string
	for k := range rows[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if got, want := strings.Join(keys, " "), "cols id is_tmux name rows tab_id title tty window_id"; got != want {
		t.Fatalf("session list --json keys: %s; want %s", got, want)
	}
	cmd := exec.Command(f.Bin, "session", "close", "-s", f.LeadID)
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("close without -f and no terminal: %v; want exit 2", err)
	}
	if f.Session(f.LeadID) == nil {
		t.Fatal("close without -f closed the session anyway")
	}
}

func TestSessionFromEnv(t *testing.T) {
	for in, want := range map[string]string{
		"w0t1p0:B9FAD42C-1D2E-4C5B-9F10-3A4B5C6D7E8F": "B9FAD42C-1D2E-4C5B-9F10-3A4B5C6D7E8F",
		"B9FAD42C-1D2E-4C5B-9F10-3A4B5C6D7E8F":        "B9FAD42C-1D2E-4C5B-9F10-3A4B5C6D7E8F",
		"":                                            "",
		"w0t1p0:":                                     "",
		"w0t1p0:not-a-uuid":                           "",
		"w0t1p0:%3; rm -rf /":                         "",
	} {
		if got := iterm2.SessionFromEnv(in); got != want {
			t.Errorf("SessionFromEnv(%q) = %q, want %q", in, got, want)
		}
	}
}
