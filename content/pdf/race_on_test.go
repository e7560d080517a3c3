//go:build race

package pdf

// raceEnabled: the tests run under the race detector, whose children
// (every extraction starts one) are several times slower and larger.
const raceEnabled = true
