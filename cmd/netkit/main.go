// Command netkit runs, inspects and converts netkit models.
//
// Each subcommand lives in its own file and registers itself in init with
// register(&command{...}); `netkit help` lists whatever is registered.
// Exit status: 0 success, 1 error, 2 usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand. To add one, create <name>.go with an init
// that calls register; nothing else needs to change.
type command struct {
	name    string
	summary string // one line for `netkit help`
	usage   string // arguments after the name, e.g. "MODEL [--json]"
	help    string // the rest of `netkit help NAME`
	// flags declares the command's flags on fs and returns the function
	// that runs it with the positional arguments.
	flags func(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("netkit: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// usageError makes run exit 2 and print the command's usage line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// run is the whole CLI, callable in-process by tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "netkit: no command given")
		writeOverview(stderr)
		return 2
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "-help" {
		name = "help"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "netkit: unknown command %q\n", name)
		writeOverview(stderr)
		return 2
	}
	fs := flag.NewFlagSet("netkit "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, once
	exec := c.flags(fs)
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		writeCommandHelp(stdout, c)
		return 0
	}
	if err == nil {
		err = exec(pos, stdout, stderr)
	}
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) || isFlagError(err) {
		fmt.Fprintf(stderr, "netkit %s: %v\nusage: netkit %s %s\nrun 'netkit help %s' for details\n", c.name, err, c.name, c.usage, c.name)
		return 2
	}
	fmt.Fprintf(stderr, "netkit %s: %s\n", c.name, errorText(err))
	return 1
}

// errorText is err for a line that already starts "netkit CMD: ". The Go
// packages prefix their errors with "netkit: " for Go callers; in the
// CLI's "netkit CMD: what failed: why" that prefix would only repeat the
// command's name, so it is dropped wherever it appears in the chain.
func errorText(err error) string {
	s := strings.TrimPrefix(err.Error(), "netkit: ")
	return strings.ReplaceAll(s, ": netkit: ", ": ")
}

// flagError marks errors from the flag package (bad or unknown flags).
type flagError struct{ error }

func isFlagError(err error) bool {
	var fe flagError
	return errors.As(err, &fe)
}

// parseInterspersed lets flags follow positional arguments
// (`netkit run model.nk --top 3`), which the flag package alone does not.
// "--" ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError{err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
