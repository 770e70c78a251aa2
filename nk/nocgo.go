//go:build !cgo

package nk

import "github.com/netkit/netkit/internal/engine"

// Package nk compiles the C core through cgo. Without cgo (CGO_ENABLED=0)
// the build stops at the line below, whose name says what to do: package
// nkc has the same API and loads libnetkit at run time, with no cgo.
var _ = nk_needs_cgo__for_CGO_ENABLED_0_use_package_github_com_netkit_netkit_nkc

func open(string) (*engine.Backend, error) { return nil, nil } // keeps this the only error
