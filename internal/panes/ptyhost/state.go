package ptyhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// State is the host's record of itself and the command it runs, kept
// beside the log so that kill, logs and status can find both processes
// even after the host has died.
type State struct {
	HostPID    int      `json:"hostPid"`
	HostStart  string   `json:"hostStart"`
	ChildPID   int      `json:"childPid,omitempty"`
	ChildStart string   `json:"childStart,omitempty"`
	Argv       []string `json:"argv"`
	Cwd        string   `json:"cwd,omitempty"`
	Socket     string   `json:"socket"`
	Log        string   `json:"log"`
	StartedAt  string   `json:"startedAt"`
	// Exited is set once the command has ended; ExitCode is its status
	// (-1 when killed by a signal).
	Exited   bool `json:"exited,omitempty"`
	ExitCode int  `json:"exitCode,omitempty"`
}

// ReadState reads a host's record; a missing one is fs.ErrNotExist.
func ReadState(path string) (State, error) {
	var s State
	b, err := safefs.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("read teammate host state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("teammate host state %s does not parse: %w", path, err)
	}
	return s, nil
}

func writeState(path string, s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return lockfile.WriteAtomic(path, b)
}

// HostAlive reports whether the host that wrote s still runs.
func (s State) HostAlive() bool { return proc.Alive(s.HostPID, s.HostStart) }

// ChildAlive reports whether the command the host started still runs.
// Without a recorded start time the pid proves nothing (it may have been
// reused by a process paneteam did not start), so the answer is no, as
// for the host (Alive).
func (s State) ChildAlive() bool {
	return s.ChildPID > 0 && s.ChildStart != "" && proc.Alive(s.ChildPID, s.ChildStart)
}

func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
