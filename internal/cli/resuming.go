package cli

import (
	"context"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/lockfile"
)

// What resume and web share: how this process brings a team back.

// resumeBase is how this process resumes a team, for resume and for
// paneteam web's Resume alike: the launch records in paneteam's state
// folder, the backends, the agent CLIs' sessions, and the process that
// becomes the lead (leaderPID, else defaultLeaderPID). Team is unset.
func resumeBase(ctx context.Context, env Env, lock lockfile.Options, leaderPID int) (resume.Options, error) {
	state, err := env.stateDir()
	if err != nil {
		return resume.Options{}, err
	}
	o := resume.Options{Lock: lock, Records: launches.Open(state), BackendEnv: backendEnv(env),
		Caller: callerOf(env), Exe: env.Exe, Say: env.Stderr, LeaderPID: leaderPID,
		AgentSession: func(rec launches.Record) (string, string) { return agentrun.Session(rec, env.Getenv) }}
	if o.LeaderPID == 0 {
		o.LeaderPID = defaultLeaderPID(ctx, env)
	}
	return o, nil
}
