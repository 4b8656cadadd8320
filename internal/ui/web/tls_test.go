package web

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestSelfSignedIsKeptAndPrivate: paneteam's own certificate covers the
// names it answers to, is kept (the fingerprint the person checked once
// stays true), is made again for a new name, and its key is 0600.
func TestSelfSignedIsKeptAndPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "web")
	c, err := selfSigned(dir, []string{"devbox.example", "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	x, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"devbox.example", "192.0.2.7"} {
		if err := x.VerifyHostname(n); err != nil {
			t.Errorf("the certificate does not cover %s: %v", n, err)
		}
	}
	fp := Fingerprint(c)
	if !regexp.MustCompile(`^([0-9A-F]{2}:){31}[0-9A-F]{2}$`).MatchString(fp) {
		t.Errorf("fingerprint %q is not SHA-256 as browsers show it", fp)
	}
	again, err := selfSigned(dir, []string{"devbox.example"})
	if err != nil || Fingerprint(again) != fp {
		t.Errorf("the kept certificate was made again (%v)", err)
	}
	other, err := selfSigned(dir, []string{"other.example"})
	if err != nil || Fingerprint(other) == fp {
		t.Errorf("a new name did not get a certificate covering it (%v)", err)
	}
	for _, f := range []string{"key.pem", "cert.pem"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v, want 0600", f, err, fi.Mode().Perm())
		}
	}
}
