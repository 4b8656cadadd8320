package lifecycle

import (
	"context"
	"fmt"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/team"
)

// DefaultResumeGrace is how long a team that can come back (its lead
// and panes died without a shutdown: a tmux server that died, a
// reboot) is kept by Reap after its last change, for 'paneteam resume':
// resume.DefaultWithin, the same day 'resume --all' looks back.
const DefaultResumeGrace = resume.DefaultWithin

// resumeGrace is the grace period ro asks for teams that can come back.
func (ro ReapOptions) resumeGrace() time.Duration { return grace(ro.ResumeGrace, DefaultResumeGrace) }

// Resumable says whether the team of cfg can come back with 'paneteam
// resume' (resume.Check, from the launch records in the caller's state
// folder), nil when not.
func (o Options) Resumable(ctx context.Context, t team.Team, cfg *team.Config) *resume.Resumable {
	if o.Backend.Getenv == nil {
		return nil
	}
	state, err := provenance.StateDir(o.Backend.Getenv)
	if err != nil {
		return nil
	}
	store := launches.Open(state)
	r, ok := resume.Check(ctx, t, cfg, &store, o.Backend)
	if !ok {
		return nil
	}
	return r
}

// keepResumable says whether an orphaned team is kept because it can
// come back and its grace period has not passed, and why.
func (o Options) keepResumable(ctx context.Context, t team.Team, cfg *team.Config, ro ReapOptions, why string) (string, bool) {
	grace := ro.resumeGrace()
	if grace <= 0 {
		return "", false
	}
	r := o.Resumable(ctx, t, cfg)
	if r == nil {
		return "", false
	}
	ago := ro.Now().Sub(r.LastActive)
	if ago >= grace {
		return "", false
	}
	return fmt.Sprintf("%s, but it can come back (its teammates' panes went away without a shutdown): kept %s after its last change "+
		"(%s ago) for '%s' (--resume-grace sets it)", why, grace, ago.Round(time.Second), remote.Line("paneteam", "resume", "--team", t.Name)), true
}
