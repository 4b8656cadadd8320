package launches

import "github.com/paneteam/paneteam/internal/sys/proc"

// Running says whether the process this launch started still runs, as
// paneteam recorded it: its pid with the same start time. known is
// false when the record cannot tell (no pid, or no start time: a record
// an older release wrote, whose pid may since name another process,
// after a reboot most of all); the caller must then ask the pane.
func (r Record) Running() (running, known bool) {
	if r.PID <= 0 || r.PIDStart == "" {
		return false, false
	}
	return proc.Alive(r.PID, r.PIDStart), true
}
