//go:build race

package mcpserver

// raceEnabled: the race detector slows encoding/json down by an order of
// magnitude, so the oversized-argument case shrinks from 10 MB to 1 MB
// under -race (still four times the arguments cap, the same code path).
const raceEnabled = true
