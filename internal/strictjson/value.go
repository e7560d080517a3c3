package strictjson

import (
	"fmt"
	"strconv"

	"github.com/ocfetch/ocfetch/capability"
)

// IsInt reports whether raw is a plain JSON integer literal: an optional
// minus sign and decimal digits, without leading zeros, fraction or
// exponent. 1.0, 1e0, "1", true and null are not integers.
func IsInt(raw []byte) bool {
	i := 0
	if len(raw) > 0 && raw[0] == '-' {
		i = 1
	}
	if i == len(raw) || (raw[i] == '0' && len(raw) > i+1) {
		return false
	}
	for ; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

// Int returns the value of raw if raw is a plain JSON integer literal
// ([IsInt]) in [min, max]; ok is false otherwise, including when the
// literal does not fit in an int64.
func Int(raw []byte, min, max int64) (n int64, ok bool) {
	if !IsInt(raw) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < min || n > max {
		return 0, false
	}
	return n, true
}

// Describe names v for a message, telling apart what [Kind.String] lumps
// together: "an object", "a list", `the string "3000"`, and scalars by
// their literal (3000, 3000.0, 1e3, true, null). Strings and literals are
// cut to 64 printable ASCII bytes ([capability.Sanitize]).
func Describe(v Value) string {
	switch v.Kind {
	case Object, Array:
		return v.Kind.String()
	case String:
		return fmt.Sprintf("the string %q", capability.Sanitize(v.Text()))
	}
	return capability.Sanitize(string(v.Raw))
}
