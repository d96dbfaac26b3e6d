// Package cmdflag holds what the tools' commands share in reading their
// flags.
package cmdflag

import (
	"cmp"
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

// Between returns nil if the value v of flag -name lies in lo..hi, and
// otherwise an error saying it must.
func Between[T cmp.Ordered](name string, v, lo, hi T) error {
	if v < lo || v > hi {
		return fmt.Errorf("-%s must be between %v and %v", name, lo, hi)
	}
	return nil
}

// Check returns nil if ok, and otherwise the error of format and a.
func Check(ok bool, format string, a ...any) error {
	if !ok {
		return fmt.Errorf(format, a...)
	}
	return nil
}

// First returns the first of errs that is not nil: of a command's checks
// of its flags, in order, the one to report.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
