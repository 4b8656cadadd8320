package cli

import "github.com/paneteam/paneteam/lockfile"

func lockOptsDefault() lockfile.Options { return lockfile.Options{} }
