package land

import (
	"fmt"
	"strings"
)

// The refusals and failures of a pull request (PullRequest). Each but
// GHError comes before anything is pushed.

// NoRemoteError is a repository with no remote to push to: the lead's
// branch tracks none and there is no origin.
type NoRemoteError struct {
	Dir     string
	Remotes []string // the remotes there are (none named origin)
}

func (e *NoRemoteError) Error() string {
	if len(e.Remotes) == 0 {
		return fmt.Sprintf("the repository of %s has no remote to push to: add one (git remote add origin URL)", e.Dir)
	}
	return fmt.Sprintf("the repository of %s has no origin and your branch tracks no remote (its remotes: %s): name the one to push to", e.Dir, strings.Join(e.Remotes, ", "))
}

// UnknownRemoteError is a remote asked for that the repository lacks.
type UnknownRemoteError struct {
	Name    string
	Remotes []string
}

func (e *UnknownRemoteError) Error() string {
	has := "none"
	if len(e.Remotes) > 0 {
		has = strings.Join(e.Remotes, ", ")
	}
	return fmt.Sprintf("the repository has no remote %s (its remotes: %s)", e.Name, has)
}

// NothingToPushError is a teammate's branch with nothing the lead's
// branch lacks: no commit past it (Held false), or only changes it holds
// already.
type NothingToPushError struct {
	Member, Branch, Onto string
	Held                 bool
}

func (e *NothingToPushError) Error() string {
	if e.Held {
		return fmt.Sprintf("%s holds every change of %s's branch %s already: nothing to push", e.Onto, e.Member, e.Branch)
	}
	return fmt.Sprintf("%s's branch %s has no commit that %s lacks: nothing to push", e.Member, e.Branch, e.Onto)
}

// PushRejectedError is a push the remote refused: its branch of that
// name has commits the teammate's lacks, or a rule or hook of the
// remote's said no.
type PushRejectedError struct {
	Remote, Branch string
	Reason         string // git's: "fetch first", "non-fast-forward", "refused by the remote: ..."
	Output         string // git's stderr
}

func (e *PushRejectedError) Error() string {
	return fmt.Sprintf("%s refused the push of %s (%s)", e.Remote, e.Branch, e.Reason)
}

// Diverged reports a remote branch with commits the pushed one lacks.
func (e *PushRejectedError) Diverged() bool {
	return strings.Contains(e.Reason, "fetch first") || strings.Contains(e.Reason, "non-fast-forward")
}

// PushHookError is the person's pre-push hook failing: nothing was
// pushed.
type PushHookError struct {
	Hook   string
	Output string // what git and the hook wrote
}

func (e *PushHookError) Error() string {
	return fmt.Sprintf("your git hook %s failed, so nothing was pushed: %s", e.Hook, strings.TrimSpace(e.Output))
}

// GHError is gh failing to open the request once the branch is pushed.
type GHError struct {
	Remote, Branch string
	Stderr         string // the tail of what gh wrote
	Err            error
}

func (e *GHError) Error() string {
	msg := fmt.Sprintf("the branch %s is pushed to %s, but gh did not open the pull request: %v", e.Branch, e.Remote, e.Err)
	if e.Stderr != "" {
		msg += "\n" + e.Stderr
	}
	return msg
}

func (e *GHError) Unwrap() error { return e.Err }
