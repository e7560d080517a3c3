package egress

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// ErrCAFile is wrapped by every error of [LoadCAFile].
var ErrCAFile = errors.New("invalid CA file")

// maxCAFile bounds a CA bundle (a full public bundle is about 250 KiB).
const maxCAFile = 4 << 20

// LoadCAFile returns the system roots plus the certificate authorities in
// the PEM file at path (a TLS-inspecting corporate CA, say), for
// [Options.RootCAs]. The file must be a regular file of at most 4 MiB
// holding one or more CERTIFICATE blocks, each a valid X.509 certificate,
// and nothing else but whitespace or text between blocks; a missing file,
// no certificate, another block type or a certificate that does not parse
// is an error wrapping [ErrCAFile] that names the file (and the block).
// Where the system roots cannot be loaded, the pool holds the file's
// certificates only: stricter, never looser.
func LoadCAFile(path string) (*x509.CertPool, error) {
	data, err := readRegularFile(path, maxCAFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCAFile, err)
	}
	certs, err := parseCerts(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCAFile, path, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// parseCerts returns every certificate of a PEM bundle, refusing a bundle
// with none, a block of another type, or a certificate that does not parse.
func parseCerts(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for n := 1; ; n++ {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("block %d is %q; want CERTIFICATE", n, b.Type)
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %v", n, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate found (want -----BEGIN CERTIFICATE----- blocks)")
	}
	return certs, nil
}
