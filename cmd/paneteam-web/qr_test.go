package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// webCmd is paneteam-web serving a fresh team on a free port, with a
// HOME and state folder of its own.
func webCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	bin := testutil.Tool(t, "paneteam-web", "./cmd/paneteam-web")
	root := testutil.Root(t)
	teamtest.OnRoot(t, root, "phone", team.CreateOptions{}, teamtest.Named("alice")...)
	home := t.TempDir()
	cmd := exec.Command(bin, append([]string{"web", "--team", "phone", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home+"/state", "XDG_CONFIG_HOME=", "PANETEAM_ROOT="+root, "TERM=xterm-256color")
	return cmd
}

// lineReader hands out r's lines as they come.
func lineReader(r io.Reader) <-chan string {
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- strings.TrimRight(sc.Text(), "\r")
		}
	}()
	return lines
}

// readUntil reads lines until one holds end, and returns them all; the
// server runs until it is stopped, so the last line people read is where
// its output ends.
func readUntil(t *testing.T, lines <-chan string, end string) []string {
	t.Helper()
	var got []string
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("paneteam web ended before %q:\n%s", end, strings.Join(got, "\n"))
			}
			got = append(got, l)
			if strings.Contains(l, end) {
				return got
			}
		case <-deadline:
			t.Fatalf("no %q within 20s:\n%s", end, strings.Join(got, "\n"))
		}
	}
}

func stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGINT) //nolint:errcheck
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill() //nolint:errcheck
		t.Fatal("paneteam web did not stop on Ctrl-C")
	}
}

// TestQRCodeOnATerminal: on a terminal, the URL's line is followed by a
// QR code of that very URL, drawn in half blocks, that reads back module
// for module as the encoder's bitmap of the URL (the code a phone's
// camera would decode).
func TestQRCodeOnATerminal(t *testing.T) {
	cmd := webCmd(t)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 60, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	defer stop(t, cmd)
	lines := readUntil(t, lineReader(tty), "open the URL above")
	u := lines[0]
	if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "?token=") {
		t.Fatalf("the first line is not the URL: %q", u)
	}
	var art []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "\x1b[30;107m") {
			art = append(art, l)
		}
	}
	got := readHalfBlocks(t, art)
	q, err := qrcode.New(u, qrcode.Low)
	if err != nil {
		t.Fatal(err)
	}
	want := q.Bitmap()
	if len(got) < len(want) || len(got) > len(want)+1 {
		t.Fatalf("the code has %d rows of modules, want %d (the URL's):\n%s", len(got), len(want), strings.Join(art, "\n"))
	}
	for y := range want {
		for x := range want[y] {
			if x >= len(got[y]) || got[y][x] != want[y][x] {
				t.Fatalf("module (%d,%d) differs from the URL's QR code:\n%s", x, y, strings.Join(art, "\n"))
			}
		}
	}
}

// readHalfBlocks turns half-block lines back into rows of modules (true
// is dark), two rows a line.
func readHalfBlocks(t *testing.T, lines []string) [][]bool {
	t.Helper()
	var rows [][]bool
	for _, l := range lines {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "\x1b[30;107m"), "\x1b[0m")
		var top, bottom []bool
		for _, r := range l {
			switch r {
			case '█':
				top, bottom = append(top, true), append(bottom, true)
			case '▀':
				top, bottom = append(top, true), append(bottom, false)
			case '▄':
				top, bottom = append(top, false), append(bottom, true)
			case ' ':
				top, bottom = append(top, false), append(bottom, false)
			default:
				t.Fatalf("unexpected %q in the code's line %q", r, l)
			}
		}
		rows = append(rows, top, bottom)
	}
	return rows
}

// TestNoQRCodeForAPipeOrJSON: a script that reads paneteam web's output,
// through a pipe or with --json on a terminal, gets the URL and no code.
func TestNoQRCodeForAPipeOrJSON(t *testing.T) {
	t.Run("pipe", func(t *testing.T) {
		cmd := webCmd(t)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer stop(t, cmd)
		lines := readUntil(t, lineReader(out), "open the URL above")
		if !strings.Contains(lines[0], "?token=") {
			t.Fatalf("the first line is not the URL: %q", lines[0])
		}
		if text := strings.Join(lines, "\n"); strings.ContainsAny(text, "█▀▄\x1b") {
			t.Fatalf("a QR code went into a pipe:\n%s", text)
		}
	})
	t.Run("json", func(t *testing.T) {
		cmd := webCmd(t, "--json")
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 60, Cols: 120})
		if err != nil {
			t.Fatal(err)
		}
		defer tty.Close()
		defer stop(t, cmd)
		from := lineReader(tty)
		lines := readUntil(t, from, `"url"`)
		var v struct{ URL string }
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &v); err != nil || !strings.Contains(v.URL, "?token=") {
			t.Fatalf("--json printed %q (%v), want {\"url\": ...}", lines, err)
		}
		// A code would be printed at once after the JSON line: give it a
		// moment and look.
		select {
		case l := <-from:
			lines = append(lines, l)
		case <-time.After(300 * time.Millisecond):
		}
		if text := strings.Join(lines, "\n"); strings.ContainsAny(text, "█▀▄") {
			t.Fatalf("--json printed a QR code:\n%s", text)
		}
	})
}
