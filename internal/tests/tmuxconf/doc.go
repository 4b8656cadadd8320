// Package tmuxconf holds the end-to-end test of tmux.conf.example: the
// file loaded into a real tmux server, a real client attached to it, and
// each key binding pressed and answered as a person would (issue 12).
package tmuxconf
