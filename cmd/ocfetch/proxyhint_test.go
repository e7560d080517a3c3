package main

import "testing"

// TestProxyEnvHint: the line ocfetch proxy prints for setting the proxy
// variables reads the credentials from their file, in the shell of the
// platform: export and $(cat …) for POSIX shells; on Windows, where
// export does not exist, PowerShell's $env: assignments ($(cat …) is
// Get-Content there, and single quotes are literal in both).
func TestProxyEnvHint(t *testing.T) {
	for _, tc := range []struct {
		goos, file, want string
	}{
		{"linux", "/home/me/.config/ocfetch/proxy-credentials",
			`  export HTTPS_PROXY="http://$(cat /home/me/.config/ocfetch/proxy-credentials)@127.0.0.1:3128" HTTP_PROXY="http://$(cat /home/me/.config/ocfetch/proxy-credentials)@127.0.0.1:3128" ALL_PROXY="socks5h://$(cat /home/me/.config/ocfetch/proxy-credentials)@127.0.0.1:3128"`},
		{"linux", "", `  export HTTPS_PROXY=http://127.0.0.1:3128 HTTP_PROXY=http://127.0.0.1:3128 ALL_PROXY=socks5h://127.0.0.1:3128`},
		{"windows", `C:\Users\me\AppData\Roaming\ocfetch\proxy-credentials`,
			`  $env:HTTPS_PROXY="http://$(cat 'C:\Users\me\AppData\Roaming\ocfetch\proxy-credentials')@127.0.0.1:3128"; $env:HTTP_PROXY="http://$(cat 'C:\Users\me\AppData\Roaming\ocfetch\proxy-credentials')@127.0.0.1:3128"; $env:ALL_PROXY="socks5h://$(cat 'C:\Users\me\AppData\Roaming\ocfetch\proxy-credentials')@127.0.0.1:3128"   # PowerShell`},
		{"windows", "", `  $env:HTTPS_PROXY="http://127.0.0.1:3128"; $env:HTTP_PROXY="http://127.0.0.1:3128"; $env:ALL_PROXY="socks5h://127.0.0.1:3128"   # PowerShell`},
	} {
		if got := proxyEnvHint(tc.goos, tc.file, "127.0.0.1:3128"); got != tc.want {
			t.Errorf("proxyEnvHint(%s, %q) =\n%s\nwant\n%s", tc.goos, tc.file, got, tc.want)
		}
	}
}
