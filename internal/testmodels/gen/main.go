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
	int8 := flag.String("int8", "", "write only the int8 test model, into this directory")
	flag.Parse()
	if *int8 != "" {
		write(*int8, testmodels.Int8OpsName, testmodels.EncodeInt8Ops)
		return
	}
	for _, name := range testmodels.Names() {
		write(*out, name, func() ([]byte, error) { return testmodels.Encode(name) })
	}
}

// write encodes a model into dir/<name>.nk, or exits with the error.
func write(dir, name string, encode func() ([]byte, error)) {
	img, err := encode()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name+".nk"), img, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s.nk: %d B\n", name, len(img))
}
