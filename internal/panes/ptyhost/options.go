package ptyhost

import (
	"flag"
	"fmt"
	"io"
	"strconv"
)

// HostCommand is the hidden paneteam subcommand that runs a host; Start
// runs "paneteam <HostCommand> <Options.Args()...>".
const HostCommand = "pty-host"

// Options describe one hosted teammate.
type Options struct {
	Paths Paths
	Argv  []string // the command, run as is (no shell)
	Cwd   string
	Rows  int
	Cols  int
	// MaxLog bounds the log file (DefaultMaxLog when 0).
	MaxLog int64
}

// Default terminal size of a hosted teammate until someone attaches.
const (
	DefaultRows = 40
	DefaultCols = 120
)

// Args renders o as the host command's arguments; ParseArgs reads them
// back. Keeping both here means the launcher and the host cannot disagree.
// Each flag is one --name=value word, so nothing between paneteam and the
// host can mistake a value for an argument.
func (o Options) Args() []string {
	a := []string{
		"--log=" + o.Paths.Log, "--prev=" + o.Paths.Prev, "--state=" + o.Paths.State,
		"--socket=" + o.Paths.Socket, "--cwd=" + o.Cwd,
		"--rows=" + strconv.Itoa(o.Rows), "--cols=" + strconv.Itoa(o.Cols),
		"--max-log=" + strconv.FormatInt(o.MaxLog, 10), "--",
	}
	return append(a, o.Argv...)
}

// ParseArgs reads the host command's arguments.
func ParseArgs(args []string) (Options, error) {
	var o Options
	fs := flag.NewFlagSet(HostCommand, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Paths.Log, "log", "", "")
	fs.StringVar(&o.Paths.Prev, "prev", "", "")
	fs.StringVar(&o.Paths.State, "state", "", "")
	fs.StringVar(&o.Paths.Socket, "socket", "", "")
	fs.StringVar(&o.Cwd, "cwd", "", "")
	fs.IntVar(&o.Rows, "rows", DefaultRows, "")
	fs.IntVar(&o.Cols, "cols", DefaultCols, "")
	fs.Int64Var(&o.MaxLog, "max-log", 0, "")
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%s: %w (this command is started by paneteam itself)", HostCommand, err)
	}
	o.Argv = fs.Args()
	if len(o.Argv) == 0 || o.Paths.Log == "" || o.Paths.Socket == "" || o.Paths.State == "" {
		return o, fmt.Errorf("%s: missing --log, --state, --socket or the command (this command is started by paneteam itself)", HostCommand)
	}
	return o, nil
}
