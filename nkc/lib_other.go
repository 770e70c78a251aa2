//go:build !(darwin || freebsd || linux || netbsd)

package nkc

import (
	"errors"

	nkrt "github.com/netkit/netkit/internal/runtime"
)

func open(string) (*nkrt.Backend, error) {
	return nil, errors.New("nkc: loading libnetkit is not supported on this system; use package nk")
}
