package mailbox

import (
	"crypto/rand"
	"math/big"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Request ids as Claude Code makes them (docs/PROTOCOL.md §8).

// PermissionRequestID is "perm-<ms>-<7 base36>".
func PermissionRequestID(now time.Time) string {
	return "perm-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + base36(7)
}

// SandboxRequestID is "sandbox-<ms>-<7 base36>".
func SandboxRequestID(now time.Time) string {
	return "sandbox-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + base36(7)
}

// PlanRequestID is "plan_approval-<ms>@<name>@<team>".
func PlanRequestID(now time.Time, name, team string) string {
	return RequestID("plan_approval", name, now) + "@" + team
}

func base36(n int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	for i := range b {
		x, _ := rand.Int(rand.Reader, big.NewInt(36))
		b[i] = digits[x.Int64()]
	}
	return string(b)
}

// The checks Claude Code makes before it shows a frame: a failing
// request id shows as "[invalid id]", a failing timestamp as "[invalid
// timestamp]" (docs/PROTOCOL.md §8).
var (
	permIDPattern     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^perm-[0-9]{1,20}-[0-9a-z]{1,12}$`) })
	shutdownIDPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:shutdown|plan_approval)-[0-9]{1,20}@[^@\n]{1,300}(?:@[^@\n]{1,300})?$`)
	})
	timestampPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$`)
	})
	shutdownAckPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^shutdown-[0-9]{1,20}@[\w.-]{1,64}$`) })
)

// ValidPermissionID reports whether id passes Claude Code's display check
// for permission request ids.
func ValidPermissionID(id string) bool { return permIDPattern().MatchString(id) }

// ValidShutdownOrPlanID reports whether id passes Claude Code's display
// check for shutdown and plan request ids.
func ValidShutdownOrPlanID(id string) bool { return shutdownIDPattern().MatchString(id) }

// ShutdownGetsInstructions reports whether a shutdown_request with this
// id gets Claude Code's approval instructions appended for its model
// (docs/PROTOCOL.md §10): ids paneteam makes for plain member names do.
func ShutdownGetsInstructions(id string) bool { return shutdownAckPattern().MatchString(id) }

// ValidTimestamp reports whether ts passes Claude Code's display check.
func ValidTimestamp(ts string) bool { return timestampPattern().MatchString(ts) }
