package resume

import (
	"context"
	"fmt"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// What resume believes about whether a member still runs. The member row
// in config.json is written by others (Claude Code, teammates, other
// hosts): a row changed to name another pane or tmux server, or a second
// row of the same name, must never make a running teammate look gone,
// or two copies of it would run on one session. So a member is judged
// first from its launch record, which paneteam alone writes in its
// private state folder: the process it started (pid and start time), and
// its pane on the tmux server paneteam made it on. The row is asked only
// as well, never instead: a pane it names that carries the member's id
// keeps the member running too.

// verdict is whether a member still runs, and why.
type verdict struct {
	running bool
	why     string // why it is running, for the person
	err     error  // its state cannot be told: left alone
}

// Gone reports whether the member of row (with its launch record rec, nil
// when none) is gone by resume's judgement: neither its recorded process
// nor a pane that runs it lives, and its state could be told. It is what
// teamwatch shows as resumable, so status never offers a resume that
// would start nothing. It does not wait for a process whose pane has
// just gone (ProcessGrace): such a member is not gone yet.
func Gone(ctx context.Context, census *backend.Census, cfg *team.Config, row team.Member, rec *launches.Record) bool {
	v := judge(ctx, census, cfg, row, rec, 0)
	return v.err == nil && !v.running
}

// judge says whether the member of row (with its launch record rec, nil
// when none) still runs; a recorded process whose pane is gone is given
// grace to end.
func judge(ctx context.Context, census *backend.Census, cfg *team.Config, row team.Member, rec *launches.Record, grace time.Duration) verdict {
	recorded := recordedRow(row, rec)
	alive, err := census.Alive(ctx, cfg, &recorded)
	if rec != nil {
		if running, known := rec.Running(); known && running {
			switch {
			case alive:
				return verdict{running: true, why: fmt.Sprintf("its process %d, as paneteam started it, still runs in pane %s",
					rec.PID, visible.Line(recorded.TmuxPaneID))}
			case outlives(ctx, *rec, grace):
				return verdict{running: true, why: fmt.Sprintf("its process %d, as paneteam started it, still runs though its pane is gone: "+
					"end it (kill %d), then resume again", rec.PID, rec.PID)}
			}
		}
	}
	if alive {
		return verdict{running: true, why: fmt.Sprintf("its pane %s still runs", visible.Line(recorded.TmuxPaneID))}
	}
	if same(recorded, row) {
		return verdict{err: err}
	}
	// The row names another pane or server than paneteam recorded: a pane
	// there carrying the member's id runs it too. One that cannot be
	// asked is no evidence either way: the record has been.
	if alive, rerr := census.Alive(ctx, cfg, &row); rerr == nil && alive {
		return verdict{running: true, why: fmt.Sprintf("a pane its row in config.json names (%s) runs it", visible.Line(row.TmuxPaneID))}
	}
	return verdict{err: err}
}

// ProcessGrace is how long a recorded process whose pane is gone is
// given to end before it is believed to outlive it: a tmux server that
// has just died has sent its panes' processes SIGHUP, which they take
// milliseconds to act on.
const ProcessGrace = 2 * time.Second

// outlives reports whether rec's process still runs after grace (or
// ctx's end).
func outlives(ctx context.Context, rec launches.Record, grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if running, _ := rec.Running(); !running {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	running, _ := rec.Running()
	return running
}

// recordedRow is row pointed at the pane and server its launch record
// names, where the record names them (records older releases wrote have
// no socket: the row's is used).
func recordedRow(row team.Member, rec *launches.Record) team.Member {
	if rec == nil || rec.Pane == "" {
		return row
	}
	out := row
	out.TmuxPaneID = rec.Pane
	if rec.Backend != "" {
		out.BackendType = rec.Backend
	}
	meta := team.MemberMeta{}
	if row.Paneteam != nil {
		meta = *row.Paneteam
	}
	if rec.TmuxSocket != "" {
		meta.TmuxSocket = rec.TmuxSocket
	}
	out.Paneteam = &meta
	return out
}

// same reports whether a and b name one pane on one server.
func same(a, b team.Member) bool {
	sock := func(m team.Member) string {
		if m.Paneteam == nil {
			return ""
		}
		return m.Paneteam.TmuxSocket
	}
	return a.TmuxPaneID == b.TmuxPaneID && a.BackendType == b.BackendType && sock(a) == sock(b)
}

// duplicates are the names of rows that share their name with another
// row in some spelling (team.SameName): a row someone else wrote in
// config.json. Such a member is left alone, whatever its rows say.
func duplicates(cfg *team.Config) map[string]int {
	// By name: how many other rows share it.
	out := map[string]int{}
	for i, a := range cfg.Members {
		others := 0
		for j, b := range cfg.Members {
			if i != j && team.SameName(a.Name, b.Name) {
				others++
			}
		}
		if others > 0 {
			out[a.Name] = max(out[a.Name], others)
		}
	}
	return out
}
