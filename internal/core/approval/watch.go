package approval

import (
	"context"
	"errors"

	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Watch calls deliver with the requests waiting now, then with each new
// waiting request once, as it arrives, until ctx ends (Watch returns
// ctx.Err()) or deliver returns an error (mailbox.ErrStop: Watch returns
// nil). It follows the lead's inbox with mailbox's watcher (file-system
// events with a polling safety net); on each change it lists the requests
// afresh, so one that was marked read and archived between two looks is
// still found.
func (l *Lead) Watch(ctx context.Context, opts mailbox.WatchOptions, deliver func([]Request) error) error {
	seen := map[key]bool{}
	fresh := func() ([]Request, error) {
		ls, err := l.List()
		if err != nil {
			return nil, err
		}
		var out []Request
		for _, r := range ls.Waiting() {
			if !seen[r.key()] {
				seen[r.key()] = true
				out = append(out, r)
			}
		}
		return out, nil
	}
	send := func(rs []Request) error {
		if len(rs) == 0 {
			return nil
		}
		return deliver(rs)
	}
	first, err := fresh()
	if err != nil {
		return err
	}
	if err := send(first); err != nil {
		if errors.Is(err, mailbox.ErrStop) {
			return nil
		}
		return err
	}
	in := mailbox.New(l.Team.InboxPath(team.LeadName), l.Lock)
	return in.Watch(ctx, opts, func([]mailbox.Message) error {
		rs, err := fresh()
		if err != nil {
			if opts.OnError != nil {
				opts.OnError(err)
			}
			return nil
		}
		return send(rs)
	})
}

// Next waits for a waiting request that match accepts (any when nil) and
// returns it: for scripts and tests that answer as requests come.
func (l *Lead) Next(ctx context.Context, match func(Request) bool) (Request, error) {
	var got Request
	found := false
	err := l.Watch(ctx, mailbox.WatchOptions{}, func(rs []Request) error {
		for _, r := range rs {
			if match == nil || match(r) {
				got, found = r, true
				return mailbox.ErrStop
			}
		}
		return nil
	})
	if err == nil && !found {
		err = ctx.Err()
	}
	return got, err
}
