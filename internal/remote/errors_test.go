package remote_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
)

func (l *lab) try(t *testing.T, host string) error {
	t.Helper()
	var say bytes.Buffer
	_, undo, err := remote.Start(context.Background(), remote.Spawn{
		Getenv: l.getenv, Host: host, Root: l.root, Team: l.team, Member: "alice",
		Exe: l.exe, Argv: []string{"sleep", "60"}, Say: &say,
	})
	if err == nil {
		undo()
	}
	return err
}

// What a person meets first on a new host, each with the fix in the
// message, and nothing left running on the lead after it.
func TestErrorsAPersonMeets(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	for _, c := range []struct {
		name, host, setup, undo string
		is                      error
		says                    []string
	}{
		{name: "unknown host key", host: sshhost.Stranger, is: remote.ErrHostKey, says: []string{"ssh " + sshhost.Stranger + "`", "fingerprint"}},
		{name: "password only", host: sshhost.NoKey, is: remote.ErrAuth, says: []string{"never a password", "ssh-copy-id"}},
		{name: "no sshfs", host: sshhost.Alias, setup: "touch /root/nosshfs; mount --bind /root/nosshfs /usr/bin/sshfs", undo: "umount /usr/bin/sshfs", says: []string{"no sshfs", "apt-get install sshfs"}},
		{name: "clock ahead", host: sshhost.Alias, setup: "printf '#!/bin/sh\\necho $(( $(/root/date.real +%%s) + 60 ))\\n' > /root/fakedate; chmod +x /root/fakedate; cp /usr/bin/date /root/date.real; mount --bind /root/fakedate /usr/bin/date", undo: "umount /usr/bin/date", says: []string{"s ahead of this machine", "timedatectl"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != "" {
				l.host.MustRun(t, c.setup)
				defer l.host.MustRun(t, c.undo)
			}
			err := l.try(t, c.host)
			if err == nil {
				t.Fatal("no error")
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error is not %v: %v", c.is, err)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			if left := l.leftOnLead(t); left != "" {
				t.Errorf("left on the lead after a failed start:\n%s", left)
			}
		})
	}
}
