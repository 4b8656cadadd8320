// Command minurfave is bench/startup's yardstick for a command-line
// program: urfave/cli/v2 with one command, which is what --version and
// --help are held against.
package main

import (
	"fmt"
	"os"

	ucli "github.com/urfave/cli/v2"
)

func main() {
	app := &ucli.App{
		Name:    "minurfave",
		Usage:   "one command",
		Version: "dev",
		Commands: []*ucli.Command{{
			Name:  "hello",
			Usage: "say hello",
			Flags: []ucli.Flag{&ucli.StringFlag{Name: "name", Value: "world"}},
			Action: func(c *ucli.Context) error {
				fmt.Println("hello", c.String("name"))
				return nil
			},
		}},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
