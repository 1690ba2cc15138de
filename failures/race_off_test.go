//go:build !race

package failures

const raceEnabled = false
