//go:build !(darwin || freebsd || linux || netbsd)

package nkc

import (
	"errors"

	"github.com/netkit/netkit/internal/engine"
)

func open(string) (*engine.Backend, error) {
	return nil, errors.New("nkc: loading libnetkit is not supported on this system; use package nk")
}
