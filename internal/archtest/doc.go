// Package archtest holds the tests of the project's structure: which
// packages may import which (see docs/architecture.md), and that no file
// cites the private notes instead of a public source. It has no code.
package archtest
