package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/diag/iterm2check"
	"github.com/paneteam/paneteam/iterm2"
)

func iterm2Command(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "iterm2",
		Usage: "iTerm2 kit: teammate profiles, and why paneteam does or does not use iTerm2 splits",
		Description: `paneteam puts teammates in iTerm2 split panes when it runs inside iTerm2
(not inside tmux) and iTerm2's it2 program can reach iTerm2's Python API.

    paneteam iterm2 doctor     # what paneteam sees and would choose, and fixes
    paneteam iterm2 profile > ~/Library/Application\ Support/iTerm2/DynamicProfiles/paneteam.json`,
		Commands: []*ucli.Command{iterm2ProfileCommand(env), iterm2DoctorCommand(env)},
	}
}

func iterm2ProfileCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "profile",
		Usage: "print an iTerm2 Dynamic Profiles file for teammates' panes (JSON)",
		Description: `Prints one profile per team colour ("paneteam red", "paneteam blue", ...):
a tab of the teammate's colour, a badge with the agent's name and what it is
doing, and triggers that mark a teammate waiting for an answer (they set a
user variable and post a notification; none runs a command).

Install it, then open teammates with the profile of their colour:

    paneteam iterm2 profile > ~/Library/Application\ Support/iTerm2/DynamicProfiles/paneteam.json
    export PANETEAM_ITERM2_PROFILES=1

The output is JSON already; --json is accepted for symmetry.`,
		Flags: []ucli.Flag{jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if err := readITerm2ProfileOptions(c); err != nil {
				return err
			}
			return runITerm2Profile(env)
		},
	}
}

// readITerm2ProfileOptions checks 'iterm2 profile' has nothing to read:
// its --json is the only output it has.
func readITerm2ProfileOptions(c *ucli.Command) error {
	if c.NArg() != 0 {
		return usagef("iterm2 profile takes no arguments")
	}
	return nil
}

func runITerm2Profile(env Env) error {
	b, err := iterm2.ProfileJSON()
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(b)
	return err
}

func iterm2DoctorCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "doctor",
		Usage: "explain which backend paneteam would choose here, and how to get iTerm2 splits",
		Description: `Shows what the backend choice sees (tmux, iTerm2, it2, the lead's session)
and what it decides, with the reason and fix for every fallback. It runs
'it2 session list' (not 'it2 --version', which succeeds even when iTerm2's
Python API is off).

    paneteam iterm2 doctor
    paneteam iterm2 doctor --backend iterm2 --json`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "backend", Usage: "judge this request (auto, tmux, iterm2, in-process) instead of $PANETEAM_BACKEND"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runITerm2Doctor(env, readITerm2DoctorOptions(c))
		},
	}
}

type iterm2DoctorOptions struct {
	Backend string // "": $PANETEAM_BACKEND, else the automatic choice
	JSON    bool
}

func readITerm2DoctorOptions(c *ucli.Command) iterm2DoctorOptions {
	return iterm2DoctorOptions{Backend: readFlags(c).String("backend"), JSON: readFlags(c).Bool("json")}
}

func runITerm2Doctor(env Env, o iterm2DoctorOptions) error {
	r := iterm2check.Run(backendEnv(env), o.Backend)
	if o.JSON {
		return printJSON(env.Stdout, r)
	}
	iterm2check.Write(env.Stdout, r)
	return nil
}
