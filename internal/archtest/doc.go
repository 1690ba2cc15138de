// Package archtest holds the tests of the project's structure: which
// packages may import which (see docs/architecture.md). It has no code.
package archtest
