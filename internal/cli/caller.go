package cli

import (
	"errors"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/mailbox"
)

// What every command that writes into a team shares: the caller as the
// core's post package sees it, and how its refusals reach the person.

// callerOf is the process as the post package sees it: its environment,
// its warnings on stderr.
func callerOf(env Env) post.Caller {
	return post.Caller{Getenv: env.Getenv, Warn: backendEnv(env).Warn}
}

// readFrom is --from as the person typed it: "" when not given or
// when it is $PANETEAM_AGENT (the flag's default).
func readFrom(c *ucli.Command, env Env) string { return readFlags(c).from(env) }

func (v flagValues) from(env Env) string {
	if from := v.String("from"); v.IsSet("from") && from != env.Getenv("PANETEAM_AGENT") {
		return from
	}
	return ""
}

// postError shows a post refused for what was asked as a wrong call.
func postError(err error) error {
	var u *post.UsageError
	if errors.As(err, &u) {
		return usageError{err}
	}
	return err
}

// The signing rules (post.Caller) for the commands that sign.
func actsAsLead(env Env) bool           { return callerOf(env).ActsAsLead() }
func leadSigner(env Env) mailbox.Signer { return callerOf(env).Signer() }
