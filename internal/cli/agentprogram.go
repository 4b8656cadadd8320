package cli

import "github.com/paneteam/paneteam/internal/agents/profile"

// agentProgram finds the profile's program on the captured PATH
// (profile.Locate), for the commands that start an agent CLI.
func agentProgram(p *profile.Profile, env Env) (string, error) {
	return p.Locate(env.Getenv("PATH"))
}
