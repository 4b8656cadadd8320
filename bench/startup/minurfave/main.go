// Command minurfave is bench/startup's yardstick for a command-line
// program: urfave/cli/v3 (the library paneteam's command line is built
// on) with one command, which is what --version and --help are held
// against.
package main

import (
	"context"
	"fmt"
	"os"

	ucli "github.com/urfave/cli/v3"
)

func main() {
	app := &ucli.Command{
		Name:    "minurfave",
		Usage:   "one command",
		Version: "dev",
		Commands: []*ucli.Command{{
			Name:  "hello",
			Usage: "say hello",
			Flags: []ucli.Flag{&ucli.StringFlag{Name: "name", Value: "world"}},
			Action: func(_ context.Context, c *ucli.Command) error {
				fmt.Println("hello", c.String("name"))
				return nil
			},
		}},
	}
	if err := app.Run(context.Background(), os.Args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
