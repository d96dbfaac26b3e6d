// Package cmdflag holds what the tools' commands share in reading their
// flags.
package cmdflag

import (
	"flag"
	"fmt"
	"io"
)

// NewFlagSet returns the flag set of command name: it returns errors rather
// than exiting, so that a command's run function can be tested, and on -h
// or a bad flag it prints usage, then the flags' defaults, to stderr.
func NewFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}
