package runtime

// Option configures Load, LoadBytes and Inspect.
type Option func(*options)

type options struct {
	arenaSize int64  // 0: exact size from inspect
	library   string // nkc: path of libnetkit
}

// WithArenaSize imposes an arena budget of n bytes for the model instead of
// the exact size nk_inspect_model reports. A budget that is too small makes
// Load fail with an *Error wrapping ErrArenaOverflow that carries the figures.
func WithArenaSize(n int64) Option { return func(o *options) { o.arenaSize = n } }

// WithLibrary loads the C core from this shared library (package nkc only;
// package nk compiles the core in and ignores it).
func WithLibrary(path string) Option { return func(o *options) { o.library = path } }

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}
