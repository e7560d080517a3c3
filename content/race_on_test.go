//go:build race

package content

// raceEnabled: under the race detector memory grows several times, so
// peak-memory bounds are logged, not asserted.
const raceEnabled = true
