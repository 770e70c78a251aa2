package main

import (
	"fmt"
	"io"

	"github.com/netkit/netkit/internal/cliutil"
)

// stdoutName is the output file name that means standard output: the data
// goes there and the command's report moves to standard error.
const stdoutName = "-"

// writeOutput writes data to path, or to stdout when path is "-".
func writeOutput(path string, data []byte, stdout io.Writer) error {
	if path == stdoutName {
		if _, err := stdout.Write(data); err != nil {
			return fmt.Errorf("write standard output: %w", err)
		}
		return nil
	}
	if err := cliutil.WriteFile(path, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
