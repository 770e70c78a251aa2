// Command apigen writes the public API of package nk and package nkc
// (api.go) and the hooks their tests share (export_test.go) into the current
// directory, from one template each (gen/*.tmpl), so the two packages export
// the same API by construction; each package supplies only open (its
// backend) and its package comment. Run by go generate in nk and nkc:
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
	pkg := flag.String("pkg", "", "package name: nk or nkc")
	flag.Parse()
	for _, f := range gen.Files {
		src, err := gen.Source(*pkg, f)
		if err == nil {
			err = os.WriteFile(f, src, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "apigen:", err)
			os.Exit(1)
		}
	}
}
