package nkc

// Open is the package's library opener, for the conformance tests that
// count its C calls.
var Open = open
