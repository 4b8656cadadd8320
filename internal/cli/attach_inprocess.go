package cli

import (
	"errors"

	ucli "github.com/urfave/cli/v2"

	"github.com/paneteam/paneteam/team"
)

// attachInProcess connects the terminal to an in-process teammate.
func attachInProcess(c *ucli.Context, env Env, t team.Team, m *team.Member) error {
	return errors.New("attaching to in-process teammates is not built yet")
}
