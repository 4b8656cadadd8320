package team

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/paneteam/paneteam/internal/sys/proc"
)

// LeadProcess is config.json's leadProcess: the Claude Code process that
// leads the team (docs/PROTOCOL.md §3). Claude Code
// owns the field: paneteam reads it and never writes it (a read-modify-
// write keeps its bytes as they were), and keeps its own lead record under
// "paneteam" instead.
type LeadProcess struct {
	PID      int64  `json:"pid"`
	PIDSpace string `json:"pidSpace"`
	// ClaimedAt is when the lead claimed the team, in epoch ms.
	ClaimedAt float64 `json:"claimedAt"`
	// ProcStart is field 22 of /proc/<pid>/stat at claim time (Linux).
	ProcStart    string `json:"procStart,omitempty"`
	HasProcStart bool   `json:"-"`
}

// leadProcessKey is the config.json key Claude Code writes.
const leadProcessKey = "leadProcess"

// claimGraceMillis is Claude Code's allowance, for a leadProcess without
// procStart, between claimedAt and the start of a process with that pid:
// a process that started later than this is another one
// (docs/PROTOCOL.md §3 "Rekey").
const claimGraceMillis = 2000

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER.
const maxSafeInteger = 1<<53 - 1

// LeadProcess returns the team's leadProcess, or false when it is absent
// or invalid, exactly as Claude Code drops it on read (docs/PROTOCOL.md
// §3): pid a safe integer, pidSpace a string, claimedAt a finite number,
// procStart absent or a string.
func (c *Config) LeadProcess() (LeadProcess, bool) {
	if c.lead.known {
		return c.lead.lp, c.lead.ok
	}
	return c.leadProcess()
}

// leadMemo is LeadProcess as decoded with the config (UnmarshalJSON),
// since every member's RunBy asks for it and finding one unknown key
// scans every key of the file: a snapshot of a team of 30 scanned its
// config.json some 60 times. SetExtra of leadProcess forgets it.
type leadMemo struct {
	lp        LeadProcess
	ok, known bool
}

func (c *Config) leadProcess() (LeadProcess, bool) {
	raw, ok := c.extra.Get(leadProcessKey)
	if !ok {
		return LeadProcess{}, false
	}
	return parseLeadProcess(raw)
}

func parseLeadProcess(raw json.RawMessage) (LeadProcess, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return LeadProcess{}, false
	}
	var lp LeadProcess
	pid, ok := jsonNumber(obj["pid"])
	if !ok || pid != math.Trunc(pid) || math.Abs(pid) > maxSafeInteger {
		return LeadProcess{}, false
	}
	lp.PID = int64(pid)
	if !jsonString(obj["pidSpace"], &lp.PIDSpace) {
		return LeadProcess{}, false
	}
	if lp.ClaimedAt, ok = jsonNumber(obj["claimedAt"]); !ok {
		return LeadProcess{}, false
	}
	if ps, present := obj["procStart"]; present {
		if !jsonString(ps, &lp.ProcStart) {
			return LeadProcess{}, false
		}
		lp.HasProcStart = true
	}
	return lp, true
}

// jsonNumber accepts a JSON number that is finite as a float64.
func jsonNumber(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func jsonString(raw json.RawMessage, out *string) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return false
	}
	return json.Unmarshal(raw, out) == nil
}

// Who leads a team.
const (
	LedByClaude   = "claude-code" // a valid leadProcess
	LedByPaneteam = "paneteam"    // paneteam's own lead record
	LedByUnknown  = "unknown"     // neither: made by hand, or by an older Claude Code
)

// Lead liveness.
const (
	LeadAlive   = "alive"
	LeadDead    = "dead"
	LeadUnknown = "unknown"
)

// Lead is who leads a team and whether that process is alive.
type Lead struct {
	By  string `json:"by"`
	PID int64  `json:"pid,omitempty"`
	// State is alive, dead or unknown. A Claude Code lead is dead only
	// when Claude Code's own take-over test proves it; otherwise alive.
	State string `json:"state"`
	// OtherPIDSpace: the lead lives in another pid namespace or on another
	// host, so nothing here can prove it dead.
	OtherPIDSpace bool `json:"otherPidSpace,omitempty"`
	// Why says how State was decided, for people.
	Why string `json:"why"`
	// Process is the leadProcess read (Claude Code leads only).
	Process *LeadProcess `json:"-"`
}

// ClaudeLed reports whether a live Claude Code process leads the team:
// there, only that process may write as team-lead.
func (l Lead) ClaudeLed() bool { return l.By == LedByClaude && l.State == LeadAlive }

// LeadOf decides who leads cfg's team and whether the lead is alive, on
// this machine.
func LeadOf(cfg *Config) Lead {
	if lp, ok := cfg.LeadProcess(); ok {
		return lp.Judge()
	}
	if m := cfg.Paneteam; m != nil && m.LeaderPID > 0 {
		l := Lead{By: LedByPaneteam, PID: int64(m.LeaderPID)}
		if proc.Alive(m.LeaderPID, m.LeaderStart) {
			l.State, l.Why = LeadAlive, fmt.Sprintf("lead process %d is running", m.LeaderPID)
		} else {
			l.State, l.Why = LeadDead, fmt.Sprintf("lead process %d is gone", m.LeaderPID)
		}
		return l
	}
	return Lead{By: LedByUnknown, State: LeadUnknown, Why: "no lead process recorded"}
}

// Judge is Claude Code's take-over test of lp, run from this
// process against the process lp names, now (judgeClaudeLead).
func (lp LeadProcess) Judge() Lead {
	return judgeClaudeLead(lp, proc.PIDSpace(), proc.Inspect(lp.PID))
}

// judgeClaudeLead is Claude Code's take-over test (docs/PROTOCOL.md
// §3 "Rekey"), given this process's pid space (here) and the
// facts about lp.PID: the lead is dead only if it lives in our pid space
// and kill(pid, 0) fails with ESRCH, or it is a zombie, or its start time
// differs from procStart, or (without procStart) the process with that
// pid started more than 2000 ms after claimedAt. Anything that cannot be
// proven dead counts as alive.
func judgeClaudeLead(lp LeadProcess, here string, f proc.Facts) Lead {
	l := Lead{By: LedByClaude, PID: lp.PID, State: LeadAlive, Process: &lp}
	switch {
	case lp.PIDSpace != here:
		l.OtherPIDSpace = true
		l.Why = fmt.Sprintf("Claude Code lead %d lives in another pid namespace (%s, here %s): cannot be proven dead", lp.PID, lp.PIDSpace, here)
	case f.NoSuchProcess:
		l.State, l.Why = LeadDead, fmt.Sprintf("Claude Code lead %d is gone", lp.PID)
	case f.Zombie:
		l.State, l.Why = LeadDead, fmt.Sprintf("Claude Code lead %d has exited (zombie)", lp.PID)
	case lp.HasProcStart && f.StartTicks != "" && f.StartTicks != lp.ProcStart:
		l.State, l.Why = LeadDead, fmt.Sprintf("Claude Code lead %d is gone (the pid now names another process)", lp.PID)
	case !lp.HasProcStart && f.StartKnown && f.StartMillis > lp.ClaimedAt+claimGraceMillis:
		l.State, l.Why = LeadDead, fmt.Sprintf("Claude Code lead %d is gone (the pid now names a process started after the claim)", lp.PID)
	default:
		l.Why = fmt.Sprintf("Claude Code lead %d is running", lp.PID)
	}
	return l
}
