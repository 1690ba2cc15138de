//go:build race

package failures

// raceEnabled: the race detector's instrumentation allocates on its own,
// so heap bounds measured under -race say nothing about the reader.
const raceEnabled = true
