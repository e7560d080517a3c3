package egress

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/url"
	"strings"
)

// IsTLSFailure reports whether err (from a request through a guarded
// client) is a failed TLS handshake or certificate check: the x509 and
// crypto/tls error types, or — since crypto/tls reports most handshake
// failures as plain errors whose text starts with "tls: " (no version in
// common, unexpected message, …) — that text, read without the *url.Error
// wrapper, which may carry the URL. The text is only tested, never shown.
func IsTLSFailure(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		verify   *tls.CertificateVerificationError
	)
	if errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &record) || errors.As(err, &alert) || errors.As(err, &verify) {
		return true
	}
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		inner = ue.Err
	}
	return inner != nil && strings.Contains(inner.Error(), "tls: ")
}
