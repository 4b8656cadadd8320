package mcpserver

import "fmt"

// MaxTextBytes is the most a message's text (send_message) and a task's
// note (update_task) may hold, in bytes of UTF-8. A message is read into
// the recipient model's context, and its inbox is rewritten whole on each
// write and read on each status-line refresh: 64 KiB is about 16,000
// tokens, already a long report. Longer content belongs in a file whose
// path is sent.
const MaxTextBytes = 64 << 10

// MaxFieldBytes is the most any other text argument may hold (a member's
// name, a summary, a task id, a status): each is a word or a line, and
// some are quoted back in an error.
const MaxFieldBytes = 1 << 10

// MaxRequestBytes is the longest request line the server reads (the
// transport's guard, guard.go). The largest request within the tools'
// own limits is send_message with MaxTextBytes of text, which JSON
// escaping can make six times as long (a control character is written
// \u00XX): 1 MiB holds that and the other arguments. A longer line is
// answered with an error and skipped, never held in memory whole.
const MaxRequestBytes = 1 << 20

// checkSize refuses an argument longer than max bytes with an error the
// agent's model can act on: the argument, its size, the limit and fix.
func checkSize(arg, value string, max int, fix string) error {
	if len(value) <= max {
		return nil
	}
	return userErr("%s is %d bytes, over the limit of %d bytes (%s): %s", arg, len(value), max, kib(max), fix)
}

func kib(n int) string {
	if n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	return fmt.Sprintf("%d bytes", n)
}

// What to do instead of a long argument.
const (
	fixText  = "write the content to a file in the shared working folder and send its path, or split it into shorter messages"
	fixNote  = "keep the note short and put the details in a file the note names"
	fixField = "it is a name, an id or a one-line summary"
)
