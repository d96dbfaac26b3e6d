// Package cmdflag holds what the tools' commands share in reading their
// flags, and how they stop when the flags are wrong: after -h with exit
// status 0, and after a bad flag or a failed check of the values with 2,
// the problem and then the usage on stderr.
package cmdflag

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
)

// usageStatus is the exit status of every command given bad usage.
const usageStatus = 2

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

// Parse parses args with fs, a flag set from NewFlagSet, for a command
// that takes flags only, and reports whether the command must stop, and
// with which exit status: 0 after -h, 2 after a bad flag or an argument
// left over. Either way the problem (if any) and the usage are on stderr.
func Parse(fs *flag.FlagSet, args []string) (status int, stop bool) {
	if status, stop := ParseArgs(fs, args); stop {
		return status, stop
	}
	if fs.NArg() > 0 {
		return Failf(fs, "unexpected argument %q", fs.Arg(0)), true
	}
	return 0, false
}

// ParseArgs is Parse for a command that reads arguments after its flags
// (fs.Args()) and checks them itself.
func ParseArgs(fs *flag.FlagSet, args []string) (status int, stop bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	default:
		return usageStatus, true
	}
}

// Fail reports err, a failed check of the flags' values or the arguments,
// as flag reports a bad flag: "NAME: err" and then the usage, on fs's
// output. It returns 2, the exit status of bad usage, for the command to
// stop with.
func Fail(fs *flag.FlagSet, err error) int {
	fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
	fs.Usage()
	return usageStatus
}

// Failf is Fail with the error of format and a.
func Failf(fs *flag.FlagSet, format string, a ...any) int {
	return Fail(fs, fmt.Errorf(format, a...))
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
