// Command apigen writes the public API of package nk and package nkc,
// api.go in each, from one template (api.go.tmpl), so the two packages
// export the same API by construction; each package supplies only open (its
// backend) and its package comment. Run by go generate in nk and nkc:
//
//	go run ../internal/tools/apigen -pkg nk -o api.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/netkit/netkit/internal/tools/apigen/gen"
)

func main() {
	pkg := flag.String("pkg", "", "package name: nk or nkc")
	out := flag.String("o", "api.go", "output file")
	flag.Parse()
	src, err := gen.Source(*pkg)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apigen:", err)
		os.Exit(1)
	}
}
