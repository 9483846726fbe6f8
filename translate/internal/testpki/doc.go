// Package testpki gives the tests of translate and of its packages the
// certificates and Secrets they build objects from: one self-signed ECDSA
// P-256 serving certificate and key, made once per test binary, with the
// variants the Secret checks are tested on (no name, SAN only, CN only,
// another key, PKCS#8, EC parameters), and the PEM helpers to bundle them.
// Only tests import it; it imports nothing of contourc.
package testpki
