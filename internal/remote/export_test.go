package remote

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
