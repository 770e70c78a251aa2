// Command gen writes the test models of package testmodels as .nk files.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/netkit/netkit/internal/testmodels"
)

func main() {
	out := flag.String("out", "testdata/models", "directory to write <name>.nk into")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range testmodels.Names() {
		img, err := testmodels.Encode(name)
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, name+".nk"), img, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s.nk: %d B\n", name, len(img))
	}
}
