package spawn

import "github.com/paneteam/paneteam/team"

// planPermissionMode is the permission mode that makes a teammate plan
// before it acts.
const planPermissionMode = "plan"

// requirePlan marks m plan-mode-required when l starts a Claude Code
// teammate in plan mode, whichever front end asks: Claude Code's own lead
// only ever gives plan mode with plan-mode-required (docs/PROTOCOL.md
// §14). Observed with 2.1.330: a teammate given --permission-mode plan
// alone approves its own ExitPlanMode and leaves plan mode without asking
// anyone; with --plan-mode-required it sends plan_approval_request and
// waits for the lead. A row already marked is left as it is.
func requirePlan(m *team.Member, l Program) {
	if permissionMode(l) != planPermissionMode || m.PlanModeRequired != nil && *m.PlanModeRequired {
		return
	}
	yes := true
	m.PlanModeRequired = &yes
}

// permissionMode is the mode l starts a Claude Code teammate in, through
// the launchers that wrap one ("": none given, or not Claude Code's).
func permissionMode(l Program) string {
	switch l := l.(type) {
	case *Claude:
		return l.PermissionMode
	case *Remote:
		return permissionMode(l.Inner)
	}
	return ""
}
