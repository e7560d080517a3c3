package benchws

import "time"

// Interleave runs up to rounds rounds of one measurement of each of n
// subjects, rotating which goes first every round so that none always
// runs on a machine another just warmed or loaded, and stops early once
// limit has passed. each(i) measures subject i once and appends its own
// result; an error ends the rounds. It returns the rounds completed.
func Interleave(rounds, n int, limit time.Duration, each func(i int) error) (int, error) {
	deadline := time.Now().Add(limit)
	done := 0
	for r := 0; r < rounds && time.Now().Before(deadline); r++ {
		for k := range n {
			if err := each((r + k) % n); err != nil {
				return done, err
			}
		}
		done++
	}
	return done, nil
}
