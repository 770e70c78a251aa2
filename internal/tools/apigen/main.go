// Command apigen writes the generated files of a package (see package gen)
// into the current directory: the public API of package nk and package nkc
// (api.go) and the hooks their tests share (export_test.go), from one
// template each, so the two packages export the same API by construction
// (each supplies only open, its backend, and its package comment); and the
// report types of the shared engine (report.go). Run by go generate:
//
//	go run ../internal/tools/apigen -pkg nk
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/netkit/netkit/internal/tools/apigen/gen"
)

func main() {
	name := flag.String("pkg", "", "package name: nk, nkc or engine")
	flag.Parse()
	pkg, err := gen.Find(*name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apigen:", err)
		os.Exit(1)
	}
	for _, f := range pkg.Files {
		src, err := gen.Source(pkg, f)
		if err == nil {
			err = os.WriteFile(f, src, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "apigen:", err)
			os.Exit(1)
		}
	}
}
