package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
)

// EnvVersion, when set, is what --version prints ("zellij 0.43.1"): the
// fake then refuses what that release's CLI lacks.
const EnvVersion = "FAKEZELLIJ_VERSION"

func version() string {
	if v := os.Getenv(EnvVersion); v != "" {
		return v
	}
	return "zellij 0.44.2"
}

// paneIDFlags reports whether this release's actions take --pane-id
// (0.44.0 added it to rename-pane and the other actions on one pane).
func paneIDFlags() bool {
	f := strings.Fields(version())
	if len(f) < 2 {
		return true
	}
	var v [3]int
	for i, p := range strings.SplitN(f[1], ".", 3) {
		v[i], _ = strconv.Atoi(p)
	}
	return v[0] > 0 || v[1] >= 44
}

// renamePane is `action rename-pane [--pane-id ID] NAME`: it names the
// pane given by id (terminal_N or N), else the focused one, and Zellij
// shows the name in the pane's frame (list-panes' title).
func renamePane(st string, args []string) error {
	const usage = "zellij action rename-pane [OPTIONS] <NAME>"
	var flags []nativetest.Flag
	if paneIDFlags() {
		flags = append(flags, nativetest.Flag{Names: []string{"--pane-id", "-p"}, Value: true})
	}
	f, pos, err := nativetest.ParseArgs(args, flags, false, usage)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &nativetest.UsageError{Msg: "the following required arguments were not provided:\n  <NAME>", Usage: usage}
	}
	if err := reach(st); err != nil {
		return err
	}
	return nativetest.Update(st, func(s *nativetest.State) error {
		p := focused(s)
		if raw, ok := f["--pane-id"]; ok {
			id, err := strconv.Atoi(strings.TrimPrefix(raw, "terminal_"))
			if err != nil {
				return fmt.Errorf("Invalid pane id: %s", raw)
			}
			if p, ok = s.Pane(id); !ok {
				return fmt.Errorf("Pane with id %s not found", raw)
			}
		}
		if p == nil {
			return fmt.Errorf("no pane to rename")
		}
		p.Title = pos[0]
		return nil
	})
}
