package land

import (
	"context"
	"fmt"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// LeftError is a teammate that has left its team: its work is still
// reviewed and landed from its record, but it cannot be told.
type LeftError struct{ Member, Team string }

func (e *LeftError) Error() string {
	return fmt.Sprintf("%s has left team %s, so it cannot be told", e.Member, e.Team)
}

// Tell sends r's teammate text, one plain message with summary, by
// send's rules: from the sender c chooses (the lead, or in a team a live
// Claude Code leads the person's own name), signed where send signs,
// written under Claude Code's lock. cfg is t's config as just read. A
// mistake in the caller's settings is a *post.UsageError.
func Tell(ctx context.Context, c post.Caller, t team.Team, cfg *team.Config, lock lockfile.Options, r worktree.Record, text, summary string) error {
	if cfg.Member(r.Member) == nil {
		return &LeftError{Member: r.Member, Team: r.Team}
	}
	from, err := c.Sender(cfg, "")
	if err != nil {
		return &post.UsageError{Err: err}
	}
	p, err := c.Open(t, cfg, lock, from, []string{r.Member}, "")
	if err != nil {
		return err
	}
	_, err = p.SendEach(ctx, []string{r.Member}, post.Plain(text, summary))
	return err
}

// SendComments sends r's teammate every comment in one message
// (CommentMessage: each line quoted with its context) by Tell's rules,
// and returns the message sent. 'paneteam review NAME --comment' and the
// dashboard's comment key both send through it.
func SendComments(ctx context.Context, c post.Caller, t team.Team, cfg *team.Config, lock lockfile.Options, r worktree.Record, comments []Comment) (string, error) {
	msg, err := CommentMessage(ctx, r, comments)
	if err != nil {
		return "", err
	}
	summary := fmt.Sprintf("review: %d comment(s) on your work", len(comments))
	if err := Tell(ctx, c, t, cfg, lock, r, msg, summary); err != nil {
		return "", err
	}
	return msg, nil
}
