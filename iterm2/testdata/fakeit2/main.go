// Command fakeit2 imitates iTerm2's it2 program for paneteam's tests; see
// package it2test. Its outputs and exit codes follow the table in docs/TESTING.md §3.
//
// With FAKEIT2_SHELL set its sessions are real (host.go): each new one
// runs that shell under a pseudo-terminal, 'session run' and 'session
// send' type into it, 'session close' hangs it up, and a session whose
// program ended is no longer listed. Fake only: 'it2 __start [--cwd DIR]
// [-- PROG...]' starts the first session's program, as a person opening
// iTerm2.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gofrs/flock"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

// exitError ends a call with a code; stderr was already written.
type exitError int

func main() {
	if len(os.Args) > 1 && os.Args[1] == nativetest.HostCommand {
		// A hosted session's program (host.go), started by a call.
		if err := nativetest.RunHost(os.Args[2:]); err != nil {
			os.Exit(1)
		}
		return
	}
	code := run(os.Args[1:])
	logCall(os.Args[1:], code)
	os.Exit(code)
}

func run(args []string) (code int) {
	statePath := os.Getenv(it2test.EnvState)
	if statePath == "" {
		fmt.Fprintln(os.Stderr, "fakeit2: set "+it2test.EnvState)
		return 99
	}
	f := newFake(os.Getenv(it2test.EnvFlavor))
	f.statePath = statePath
	if len(args) == 1 && args[0] == "--version" {
		// Succeeds even when the API is off: why --version proves nothing.
		fmt.Println(f.version())
		return 0
	}
	// Serialise calls on the state file, as iTerm2 serialises API requests.
	lk := flock.New(statePath + ".lock")
	if err := lk.Lock(); err != nil {
		fmt.Fprintln(os.Stderr, "fakeit2:", err)
		return 99
	}
	defer lk.Unlock()
	b, err := os.ReadFile(statePath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeit2:", err)
		return 99
	}
	if err := json.Unmarshal(b, &f.st); err != nil {
		fmt.Fprintln(os.Stderr, "fakeit2: state:", err)
		return 99
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(exitError)
			if !ok {
				panic(r)
			}
			code = int(e)
		}
		out, _ := json.MarshalIndent(f.st, "", "  ")
		if err := os.WriteFile(statePath, out, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "fakeit2:", err)
			code = 99
		}
	}()
	f.prune()
	if len(args) > 0 && args[0] == "__start" {
		f.start(args[1:])
		return 0
	}
	f.dispatch(args)
	return 0
}

func logCall(args []string, code int) {
	path := os.Getenv(it2test.EnvLog)
	if path == "" {
		path = os.Getenv(it2test.EnvState) + ".log"
	}
	line, _ := json.Marshal(it2test.Call{Argv: append([]string{}, args...), Exit: code})
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer fh.Close()
	fh.Write(append(line, '\n'))
}
