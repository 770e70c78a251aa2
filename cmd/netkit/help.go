package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

func init() {
	register(&command{
		name:    "help",
		summary: "show the commands, or the details of one",
		usage:   "[COMMAND]",
		help:    "With no argument, lists the commands. With a command name, shows its\nusage, description and flags.",
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			return func(args []string, stdout, _ io.Writer) error {
				switch len(args) {
				case 0:
					writeOverview(stdout)
					return nil
				case 1:
					c, ok := commands[args[0]]
					if !ok {
						return usagef("unknown command %q (have %s)", args[0], strings.Join(commandNames(), ", "))
					}
					writeCommandHelp(stdout, c)
					return nil
				}
				return usagef("at most one command name")
			}
		},
	})
}

func writeOverview(w io.Writer) {
	fmt.Fprint(w, "netkit runs small neural networks from one fixed memory arena.\n\nusage: netkit COMMAND [arguments]\n\ncommands:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, n := range commandNames() {
		fmt.Fprintf(tw, "  %s\t%s\n", n, commands[n].summary)
	}
	tw.Flush()
	fmt.Fprint(w, "\nrun 'netkit help COMMAND' for the details of one.\n")
}

func writeCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: netkit %s %s\n\n%s\n", c.name, c.usage, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", c.help)
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs)
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprint(w, "\nflags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}
