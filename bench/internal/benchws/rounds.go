package benchws

import (
	"strings"
	"time"
)

// Page is the 10 KB HTML page the bench drivers serve on loopback:
// paragraphs of plain text under a title.
func Page() []byte {
	var s strings.Builder
	s.WriteString("<!doctype html><html><head><title>Ten KB</title></head><body><main>")
	for s.Len() < 10<<10-200 {
		s.WriteString("<p>The quick brown fox jumps over the lazy dog, again and again.</p>\n")
	}
	s.WriteString("</main></body></html>")
	return []byte(s.String())
}

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
