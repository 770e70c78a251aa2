package engine

import (
	"errors"
	"strconv"
)

// Status is an nk_status code. It implements error, and errors.Is maps it
// to the sentinels below (which are Status values) like syscall.Errno.
type Status int32

// The nk_status codes.
const (
	StatusOK            Status = 0
	StatusArg           Status = 1
	StatusArenaOverflow Status = 2
	StatusFormat        Status = 3
	StatusVersion       Status = 4
	StatusChecksum      Status = 5
	StatusAlign         Status = 6
	StatusUnsupported   Status = 7
	StatusShape         Status = 8
	StatusDType         Status = 9
	StatusIO            Status = 10
	StatusState         Status = 11
)

// Sentinels for errors.Is; every *Error from the C core wraps one of them.
var (
	ErrArg           error = StatusArg
	ErrArenaOverflow error = StatusArenaOverflow
	ErrFormat        error = StatusFormat
	ErrVersion       error = StatusVersion
	ErrChecksum      error = StatusChecksum
	ErrAlign         error = StatusAlign
	ErrUnsupported   error = StatusUnsupported
	ErrShape         error = StatusShape
	ErrDType         error = StatusDType
	ErrIO            error = StatusIO
	ErrState         error = StatusState
)

// ErrOutOfMemory: the host heap could not provide a model's or session's
// arena. It is not ErrArenaOverflow, which means an arena (such as a
// WithArenaSize budget) is too small for the model.
var ErrOutOfMemory = errors.New("netkit: out of host memory")

// ErrClosed is returned by every call on a closed Model or Session.
// errors.Is(ErrClosed, ErrState) is true: it is a call in the wrong state.
var ErrClosed error = closedError{}

type closedError struct{}

func (closedError) Error() string        { return "netkit: use of a closed model or session" }
func (closedError) Is(target error) bool { return target == ErrState }

// statusNames are nk_status_str's names (kept equal by a test in package nk).
var statusNames = [...]string{
	StatusOK:            "ok",
	StatusArg:           "invalid argument",
	StatusArenaOverflow: "arena overflow",
	StatusFormat:        "bad model format",
	StatusVersion:       "unsupported format version",
	StatusChecksum:      "checksum mismatch",
	StatusAlign:         "misaligned data",
	StatusUnsupported:   "unsupported",
	StatusShape:         "shape mismatch",
	StatusDType:         "dtype mismatch",
	StatusIO:            "i/o error",
	StatusState:         "invalid state",
}

// Error returns the status name, e.g. "netkit: arena overflow".
func (s Status) Error() string {
	if s >= 0 && int(s) < len(statusNames) {
		return "netkit: " + statusNames[s]
	}
	return "netkit: status " + strconv.Itoa(int(s))
}

// Is makes errors.Is(StatusUnsupported, errors.ErrUnsupported) true; equal
// statuses already match by ==.
func (s Status) Is(target error) bool {
	return s == StatusUnsupported && target == errors.ErrUnsupported
}

// Error is a failure reported by the C core (or by the Go checks in front
// of it) with the figures that explain it.
type Error struct {
	Status    Status
	Op        int   // index of the op the failure is about, -1 when none
	Requested int64 // bytes asked for (arena overflow), else 0
	Free      int64 // bytes that were free in the arena, else 0
	Capacity  int64 // arena capacity, else 0
	Message   string
}

// Error returns the C core's message: what, how big, where.
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Status.Error()
	}
	return e.Message
}

// Unwrap returns the Status, so errors.Is(err, ErrArenaOverflow) works.
func (e *Error) Unwrap() error { return e.Status }

// errorf builds an *Error for a check done on the Go side (op index -1).
func errorf(s Status, msg string) *Error {
	return &Error{Status: s, Op: -1, Message: msg}
}

// cError converts a filled nk_error_t. st is the returned status, used when
// the C side left the record empty.
func cError(st Status, ce *CError) *Error {
	e := &Error{
		Status:    st,
		Op:        int(ce.OpIndex),
		Requested: int64(ce.Requested),
		Free:      int64(ce.FreeBytes),
		Capacity:  int64(ce.Capacity),
		Message:   cstring(ce.Message[:]),
	}
	if ce.Status == 0 {
		e.Op = -1
	}
	return e
}
