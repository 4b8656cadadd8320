package golden

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// normaliser masks what genuinely differs between two runs of the same
// scenario, and nothing else, with named placeholders. Each rule says why
// its value varies; every other byte must match the golden file.
type normaliser struct {
	tmp    string            // the session's temp folder
	binDir string            // where testutil.Binary built paneteam
	pids   map[string]string // pid -> placeholder
	keep   map[string]bool   // timestamps the test planted itself
}

func newNormaliser(tmp, binDir string) *normaliser {
	return &normaliser{tmp: tmp, binDir: binDir, pids: map[string]string{}, keep: map[string]bool{}}
}

// pid masks a process id the test knows (a lead it named): pids are the
// kernel's to choose.
func (n *normaliser) pid(pid int, placeholder string) { n.pids[strconv.Itoa(pid)] = placeholder }

// planted keeps a timestamp the test wrote itself: it is fixed, and
// seeing it in the output proves the field passed through unchanged.
func (n *normaliser) planted(ts string) { n.keep[ts] = true }

var (
	// Clock readings: every message, answer and event is stamped with the
	// time it was written, with or without fractions of a second (logs'
	// banner has none, monitor's events have nanoseconds).
	isoTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	// Clock readings in Unix milliseconds: config's createdAt and
	// joinedAt, and the shutdown request ids made from one
	// (shutdown-<ms>@name).
	epochMillis = regexp.MustCompile(`\b1\d{12}\b`)
	// Random ids: every message gets a fresh msg_id (a v4 UUID).
	uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// A request's age counts seconds since it was planted: it grows with
	// the time the test has taken.
	ageSeconds = regexp.MustCompile(`"age_seconds": \d+`)
	// tmux numbers its panes in creation order on its server; the number
	// depends on what else the server has opened.
	tmuxPane = regexp.MustCompile(`"%\d+"`)
	// 'claude --dry-run' names its tmux shim folder by a hash of the
	// paneteam binary's path, which depends on the checkout's folder.
	shimHash = regexp.MustCompile(`/shim/[0-9a-f]{12}`)
	// Its teammate router's folder is named by a hash of its setup (the
	// binary's path among it).
	routerHash = regexp.MustCompile(`/router/[0-9a-f]{12}`)
	// A lead's pid is printed as a field or in a reason ("lead process
	// 4242 is running"); only those places are looked at, so a number
	// that happens to equal a pid elsewhere stays as it is.
	pidSpot = regexp.MustCompile(`("pid": |"leaderPid": |process )(\d+)\b`)
)

func (n *normaliser) apply(s string) string {
	// The temp folder is new each run (and /tmp may be a symlink, so both
	// spellings are masked); the binary's folder depends on the checkout.
	for _, p := range []string{n.tmp, evalSymlinks(n.tmp)} {
		s = strings.ReplaceAll(s, p, "<TMP>")
	}
	for _, p := range []string{n.binDir, evalSymlinks(n.binDir)} {
		s = strings.ReplaceAll(s, p, "<BINDIR>")
	}
	s = isoTime.ReplaceAllStringFunc(s, func(ts string) string {
		if n.keep[ts] {
			return ts
		}
		return "<TIME>"
	})
	s = epochMillis.ReplaceAllString(s, "<EPOCH_MS>")
	s = uuid.ReplaceAllString(s, "<UUID>")
	s = ageSeconds.ReplaceAllString(s, `"age_seconds": <AGE_SECONDS>`)
	s = tmuxPane.ReplaceAllString(s, `"<PANE_ID>"`)
	s = shimHash.ReplaceAllString(s, "/shim/<SHIM_HASH>")
	s = routerHash.ReplaceAllString(s, "/router/<ROUTER_HASH>")
	if len(n.pids) > 0 {
		s = pidSpot.ReplaceAllStringFunc(s, func(m string) string {
			sub := pidSpot.FindStringSubmatch(m)
			if p, ok := n.pids[sub[2]]; ok {
				return sub[1] + p
			}
			return m
		})
	}
	return s
}

func evalSymlinks(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// lineDiff shows how got differs from want, line by line: "-" lines
// only in the golden file, "+" lines only in the output, with two lines
// of context around each change.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of
	// a[i:] and b[j:]; the outputs are small enough for the table.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			lines = append(lines, line{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', a[i]})
			i++
		default:
			lines = append(lines, line{'+', b[j]})
			j++
		}
	}
	const context = 2
	var out strings.Builder
	last := -1
	for k, l := range lines {
		near := false
		for d := max(0, k-context); d <= min(len(lines)-1, k+context); d++ {
			if lines[d].op != ' ' {
				near = true
				break
			}
		}
		if !near {
			continue
		}
		if last >= 0 && k > last+1 {
			out.WriteString("   ...\n")
		}
		fmt.Fprintf(&out, " %c %s\n", l.op, l.text)
		last = k
	}
	return out.String()
}
