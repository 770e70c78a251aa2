package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the CLI's version, the C core's version and its ABI version",
		usage:   "",
		help: `Prints three lines: the CLI (its Go module version, "devel" for a build
from a checkout, and the Go release that built it), the C core it runs
(NK_VERSION_STRING; compiled into the CLI through cgo) and the core's ABI
version (NK_ABI_VERSION: a libnetkit for package nkc must have this one).`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			return func(args []string, stdout, _ io.Writer) error {
				if len(args) != 0 {
					return usagef("takes no arguments, have %d", len(args))
				}
				cli, goVersion := "devel", "unknown"
				if bi, ok := debug.ReadBuildInfo(); ok {
					goVersion = bi.GoVersion
					if v := bi.Main.Version; v != "" && v != "(devel)" {
						cli = v
					}
				}
				core, err := nk.Version()
				if err != nil {
					return fmt.Errorf("C core version: %w", err)
				}
				abi, err := nk.ABIVersion()
				if err != nil {
					return fmt.Errorf("C core ABI version: %w", err)
				}
				fmt.Fprintf(stdout, "netkit CLI %s (built with %s)\n", cli, goVersion)
				fmt.Fprintf(stdout, "C core     %s\n", core)
				fmt.Fprintf(stdout, "ABI        %d\n", abi)
				return nil
			}
		},
	})
}
