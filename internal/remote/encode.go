package remote

import (
	"encoding/base64"
	"strings"
)

// Quote makes s one word for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Line joins argv into a POSIX shell command line, every word quoted.
func Line(argv ...string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// Wire is what paneteam gives ssh as the remote command for a POSIX sh
// script. sshd hands that string to the remote user's login shell, which
// may be bash, zsh, fish or tcsh, each with its own quoting; so the
// script travels base64-encoded inside one single-quoted word, and the
// only text the login shell reads is
//
//	exec sh -c 'eval "$(printf %s B64 | base64 -d)"'
//
// which every one of those shells reads the same way (a single-quoted
// word has no escapes or expansions in any of them, and the base64
// alphabet is plain). The script then runs in /bin/sh.
func Wire(script string) string {
	b64 := base64.StdEncoding.EncodeToString([]byte(script))
	return `exec sh -c 'eval "$(printf %s ` + b64 + ` | base64 -d)"'`
}
