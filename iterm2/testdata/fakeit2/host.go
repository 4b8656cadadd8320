package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

// A hosted fake (FAKEIT2_SHELL set) runs a real program in each session,
// as iTerm2 does: the session's shell under a pseudo-terminal of its own,
// in a detached host shared with the fake WezTerm and Zellij
// (internal/panes/native/nativetest), whose state file (it2test.PanesPath)
// holds each session's program, environment and pids. 'session run' and
// 'session send' type into the program, 'session close' hangs it up, and
// a session whose program ended is gone from every later call.

// iTerm2's release the hosted sessions' variables name.
const iterm2Version = "3.5.14"

// shell is the program a new session runs ("" words: not hosted).
func shell() []string { return strings.Fields(os.Getenv(it2test.EnvShell)) }

// start is the fake-only 'it2 __start [--cwd DIR] [-- PROG...]': the
// person opened iTerm2 and its first (active) session runs PROG (the
// shell when none is given). The call's environment, less the fake's own
// variables, is iTerm2's, which every session inherits.
func (f *fake) start(args []string) {
	cwd, _ := os.Getwd()
	if len(args) >= 2 && args[0] == "--cwd" {
		cwd, args = args[1], args[2:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		args = shell()
	}
	if len(args) == 0 {
		f.fail(2, "fakeit2 __start: no program: pass -- PROG or set "+it2test.EnvShell)
	}
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAKEIT2_") {
			base = append(base, kv)
		}
	}
	path := it2test.PanesPath(f.statePath)
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err == nil {
		err = nativetest.Update(path, func(s *nativetest.State) error {
			s.Kind, s.BaseEnv = "iterm2", base
			return nil
		})
	}
	if err != nil {
		f.fail(2, "fakeit2 __start: "+err.Error())
	}
	f.host(f.target(""), args, cwd)
}

// host starts argv in session s, in cwd ("": the home folder, iTerm2's
// default profile's), with iTerm2's environment and the variables it
// gives each session.
func (f *fake) host(s *it2test.Session, argv []string, cwd string) {
	path := it2test.PanesPath(f.statePath)
	var id int
	err := nativetest.Update(path, func(st *nativetest.State) error {
		env := append([]string(nil), st.BaseEnv...)
		if cwd == "" {
			cwd = "/"
			for _, kv := range env {
				if v, ok := strings.CutPrefix(kv, "HOME="); ok && v != "" {
					cwd = v
				}
			}
		}
		sid := f.sessionVar(s)
		for _, kv := range [][2]string{
			{"ITERM_SESSION_ID", sid}, {"TERM_SESSION_ID", sid}, {"ITERM_PROFILE", "Default"},
			{"TERM_PROGRAM", "iTerm.app"}, {"TERM_PROGRAM_VERSION", iterm2Version},
			{"LC_TERMINAL", "iTerm2"}, {"LC_TERMINAL_VERSION", iterm2Version},
			{"TERM", "xterm-256color"}, {"COLORTERM", "truecolor"},
		} {
			env = envlist.Set(env, kv[0], kv[1])
		}
		id = st.NextPane
		st.NextPane++
		st.Panes = append(st.Panes, nativetest.Pane{
			ID: id, Rows: s.Rows, Cols: s.Cols, Cwd: cwd, Argv: argv, Env: env,
			SplitFrom: -1, CloseOnExit: true, Title: s.Title,
		})
		return nil
	})
	if err == nil {
		err = nativetest.StartPane(path, id)
	}
	if err != nil {
		f.remove(s)
		f.fail(2, fmt.Sprintf("Error: the session's program did not start: %v", err))
	}
	s.Hosted, s.Pane = true, id
}

// sessionVar is the session's ITERM_SESSION_ID: "w<window>t<tab>p<pane>:
// <UUID>", indexes counted from 0 in the order iTerm2 made them.
func (f *fake) sessionVar(s *it2test.Session) string {
	tab, _ := strconv.Atoi(s.TabID)
	pane := 0
	for _, x := range f.st.Sessions {
		if x == s {
			break
		}
		if x.TabID == s.TabID && x.WindowID == s.WindowID {
			pane++
		}
	}
	return fmt.Sprintf("w0t%dp%d:%s", max(tab-1, 0), pane, s.ID)
}

// prune drops the hosted sessions whose program has ended: iTerm2 closes
// a session when its shell exits.
func (f *fake) prune() {
	hosted := false
	for _, s := range f.st.Sessions {
		hosted = hosted || s.Hosted
	}
	if !hosted {
		return
	}
	st, err := nativetest.Load(it2test.PanesPath(f.statePath))
	if err != nil {
		return
	}
	kept := f.st.Sessions[:0]
	for _, s := range f.st.Sessions {
		if p, ok := st.Pane(s.Pane); !s.Hosted || ok && !p.Exited {
			kept = append(kept, s)
		}
	}
	f.st.Sessions = kept
}

// typeHosted types text into hosted session s's program.
func (f *fake) typeHosted(s *it2test.Session, text string) {
	in, err := os.OpenFile(nativetest.InputPath(it2test.PanesPath(f.statePath), s.Pane), os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		_, err = in.WriteString(text)
		in.Close()
	}
	if err != nil {
		f.fail(2, fmt.Sprintf("Error: could not send text to session %s: %v", s.ID, err))
	}
}

// hangUp ends hosted session s's program as closing its pane does.
func (f *fake) hangUp(s *it2test.Session) { it2test.HangUp(it2test.PanesPath(f.statePath), s.Pane) }

// remove drops s from the session list.
func (f *fake) remove(s *it2test.Session) {
	for i, x := range f.st.Sessions {
		if x == s {
			f.st.Sessions = append(f.st.Sessions[:i], f.st.Sessions[i+1:]...)
			return
		}
	}
}
