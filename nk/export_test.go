package nk

// Open is the package's backend opener, for the conformance tests that
// count its C calls.
var Open = open
