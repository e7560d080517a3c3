module github.com/ocfetch/ocfetch/bench/guard

go 1.26.0

require github.com/ocfetch/ocfetch v0.0.0

require (
	code.dny.dev/ssrf v0.3.0
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/ocfetch/ocfetch => ../..
