package paneanswer

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/team"
)

// leadTerminal is the pane of Claude's lead in a terminal reached by its
// own command line (WezTerm's, iTerm2's it2): its screen as text, text
// typed as it is, and a key of Keys pressed.
type leadTerminal interface {
	Text(ctx context.Context) (string, error)
	Send(ctx context.Context, data string) error
	Key(ctx context.Context, k string) error
}

// nativeLeads finds the lead's pane from its record, by the terminal the
// record names; each terminal's file adds itself.
var nativeLeads = map[string]func(context.Context, *leadpane.Record) (Target, error){}

// legacyKeys are the bytes a terminal sends for each of Keys when its
// program has not turned on kitty's keyboard protocol (or the terminal
// does not honour it): VT100/xterm's, with DEL for Backspace. A digit or
// a letter is itself.
var legacyKeys = map[string]string{
	"Enter": "\r", "Esc": "\x1b", "Tab": "\t", "Shift-Tab": "\x1b[Z", "Space": " ", "Backspace": "\x7f",
	"Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
}

func legacyKey(k string) string {
	if b, ok := legacyKeys[k]; ok {
		return b
	}
	return k
}

// leadHoldsTTY says why the lead process pid is not the one answering on
// the terminal device tty (nil when it is): its controlling terminal must
// be tty, and its process group that terminal's foreground (leadInFront).
func leadHoldsTTY(pid int, tty, where string) error {
	st, err := leadStat(pid)
	if err != nil {
		return err
	}
	var dev syscall.Stat_t
	if tty == "" || syscall.Stat(tty, &dev) != nil || st.ttyNr == 0 || uint64(dev.Rdev) != st.ttyNr {
		return &RefusedError{Name: team.LeadName, Reason: Gone,
			Detail: fmt.Sprintf("%s no longer holds the lead (process %d)", where, pid)}
	}
	return st.inFront(pid, where)
}

// leadInFront says why the lead process pid would not read a key typed
// on its terminal (nil when it would): its process group must be its
// controlling terminal's foreground, so a key reaches the lead and not a
// program the person started in front of it.
func leadInFront(pid int, where string) error {
	st, err := leadStat(pid)
	if err != nil {
		return err
	}
	return st.inFront(pid, where)
}

type procStat struct {
	pgrp, tpgid int64
	ttyNr       uint64
}

func (st procStat) inFront(pid int, where string) error {
	if st.ttyNr == 0 || st.tpgid != st.pgrp {
		return &RefusedError{Name: team.LeadName, Reason: Gone,
			Detail: fmt.Sprintf("%s runs another program in front of the lead (process %d): answer there", where, pid)}
	}
	return nil
}

// leadStat reads pgrp, tty_nr and tpgid from /proc/<pid>/stat (proc(5)).
func leadStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: fmt.Sprintf("the lead (process %d) has ended", pid)}
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 6 {
		return procStat{}, fmt.Errorf("read /proc/%d/stat: unexpected %q", pid, s)
	}
	var st procStat
	st.pgrp, _ = strconv.ParseInt(f[2], 10, 64)
	st.ttyNr, _ = strconv.ParseUint(f[4], 10, 64)
	st.tpgid, _ = strconv.ParseInt(f[5], 10, 64)
	return st, nil
}

// String names each terminal's pane for the page, so the person sees
// what they answer.
func (w wezPane) String() string { return "WezTerm pane " + w.ID }

func (z zellijPane) String() string { return "Zellij pane " + z.ID + " of session " + z.Session }

func (s itermSession) String() string { return "iTerm2 session " + s.id }
