package remote

import "time"

// SetMountStarted sets the hook Mount calls once the mount's ssh is
// started, before it waits for the team on the host, and returns the
// undo. Set it before the starts it concerns begin.
func SetMountStarted(f func()) (undo func()) {
	old := mountStarted
	mountStarted = f
	return func() { mountStarted = old }
}

// StartLockPath is the start lock of c's connection.
func StartLockPath(c *Client) string { return c.ControlPath + startLockSuffix }

// SetUpWait sets how long a kept start lock waits for its pane's mark,
// and returns the undo.
func SetUpWait(d time.Duration) (undo func()) {
	old := upWait
	upWait = d
	return func() { upWait = old }
}
