package gzipbody

import (
	"net/http"
	"testing"
)

func TestLeftEncoded(t *testing.T) {
	tests := []struct {
		name         string
		encoding     string // "" for no header
		uncompressed bool
		want         bool
	}{
		{"gzip left encoded", "gzip", false, true},
		{"any case and spacing", " GZip ", false, true},
		{"decoded by the transport", "gzip", true, false},
		{"no encoding", "", false, false},
		{"another encoding", "br", false, false},
		{"a list is not gzip alone", "gzip, br", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{Header: http.Header{}, Uncompressed: tc.uncompressed}
			if tc.encoding != "" {
				resp.Header.Set("Content-Encoding", tc.encoding)
			}
			if got := LeftEncoded(resp); got != tc.want {
				t.Errorf("LeftEncoded = %v; want %v", got, tc.want)
			}
		})
	}
}
