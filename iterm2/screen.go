package iterm2

import "context"

// Screen is session id's screen as text: 'it2 session read -s ID' (it2
// 0.2.x), which prints iTerm2's screen contents as strings, without the
// session's colours or escape sequences.
func (c Client) Screen(ctx context.Context, id string) (string, error) {
	return c.run(ctx, "session", "read", "-s", id)
}

// Send types text into session id as it is, without a newline: 'it2
// session send -s ID -- TEXT', one argument after "--" so a text that
// starts with "-" is not read as an option; iTerm2 receives it as if
// typed (async_send_text), no shell between.
func (c Client) Send(ctx context.Context, id, text string) error {
	if text == "" {
		return nil
	}
	_, err := c.run(ctx, "session", "send", "-s", id, "--", text)
	return err
}
