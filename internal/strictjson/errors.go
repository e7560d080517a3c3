package strictjson

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ocfetch/ocfetch/safetext"
)

// Sentinel errors. Structural problems are returned as an *[Error] that
// wraps one of them, so callers branch with errors.Is and read the offset
// and key with errors.As.
var (
	// ErrInvalidUTF8: the document is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("not valid UTF-8")
	// ErrEmpty: the document holds nothing but whitespace. It is returned
	// as is, not wrapped in an *Error.
	ErrEmpty = errors.New("the document is empty")
	// ErrSyntax: the document is not JSON. A document cut off inside a
	// value also matches io.ErrUnexpectedEOF.
	ErrSyntax = errors.New("invalid JSON")
	// ErrTrailingData: something other than whitespace follows the value.
	ErrTrailingData = errors.New("trailing data after the JSON value")
	// ErrTooDeep: objects and arrays nest deeper than the Walker allows.
	ErrTooDeep = errors.New("nested too deeply")
	// ErrDuplicateKey: an object has the same key twice, after escapes
	// are decoded ("port" and "p\u006frt" are the same key).
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrUnknownKey: a key is not byte-exactly one of [Walker.Keys].
	ErrUnknownKey = errors.New("unknown key")
	// ErrByteOrderMark: the document starts with a byte order mark, as
	// Windows editors and PowerShell write: a UTF-8 one (EF BB BF), which
	// JSON does not allow (the error also matches ErrSyntax), or a UTF-16
	// one (FF FE or FE FF), the document then being UTF-16 (it also
	// matches ErrInvalidUTF8). The message says to save it as UTF-8
	// without a BOM.
	ErrByteOrderMark = errors.New("a byte order mark (BOM)")
)

// Error is a structural problem found by [Walker.Walk]. Its message holds
// the byte offset and, for key errors, the key cut to 64 printable ASCII
// bytes; never any other part of the document.
type Error struct {
	Err    error  // one of the sentinels above
	Offset int    // byte offset of the problem in the document
	Key    string // the decoded key, for ErrDuplicateKey and ErrUnknownKey
	// Path is the path of the object holding Key ("" for the top level),
	// for ErrDuplicateKey and ErrUnknownKey.
	Path   Path
	detail string // what the scanner saw, for ErrSyntax
	eof    bool   // the document ended inside a value
	known  []string
}

func (e *Error) Error() string {
	switch e.Err {
	case ErrSyntax:
		return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.detail)
	case ErrTooDeep:
		return fmt.Sprintf("nested deeper than %s levels at byte %d", e.detail, e.Offset)
	case ErrDuplicateKey:
		return fmt.Sprintf("duplicate key %q at byte %d", safetext.Short(e.Key), e.Offset)
	case ErrUnknownKey:
		return fmt.Sprintf("unknown key %q at byte %d (known: %s)", safetext.Short(e.Key), e.Offset, strings.Join(e.known, ", "))
	case ErrByteOrderMark:
		if e.detail == bomUTF8 {
			return fmt.Sprintf("a UTF-8 byte order mark (BOM) at byte %d; save it as UTF-8 without a BOM", e.Offset)
		}
		return fmt.Sprintf("UTF-16 (its byte order mark is at byte %d), not UTF-8; save it as UTF-8 without a BOM", e.Offset)
	}
	return fmt.Sprintf("%v at byte %d", e.Err, e.Offset)
}

// Unwrap returns the sentinel, and io.ErrUnexpectedEOF as well when the
// document ends inside a value.
func (e *Error) Unwrap() []error {
	if e.Err == ErrByteOrderMark {
		if e.detail == bomUTF8 {
			return []error{ErrByteOrderMark, ErrSyntax}
		}
		return []error{ErrByteOrderMark, ErrInvalidUTF8}
	}
	if e.eof {
		return []error{ErrSyntax, io.ErrUnexpectedEOF}
	}
	return []error{e.Err}
}
