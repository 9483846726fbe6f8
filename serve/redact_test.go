package serve

import (
	"bytes"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/contourc/contourc/translate"
)

const testKey = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBdJ\n-----END EC PRIVATE KEY-----\n"
const testCert = "-----BEGIN CERTIFICATE-----\nMIIB0TCCAXeg\n-----END CERTIFICATE-----\n"

func TestRedactText(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tt := range []struct {
		name, in string
		leaks    []string // must not survive
		keeps    []string // must survive
	}{
		{"PEM key", "bad key " + testKey + " end", []string{"MHcCAQEEIBdJ"}, []string{"bad key", "end", redacted}},
		{"cut short", "value: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN", []string{"MIIEvQIBADAN"}, []string{"value:"}},
		{"base64 key", "tls.key: " + b64(testKey), []string{b64(testKey)}, []string{"tls.key:"}},
		{"certificates stay", "tls.crt: " + b64(testCert) + " " + testCert, nil, []string{b64(testCert), "MIIB0TCCAXeg"}},
		{"nothing to do", "file.yaml:3: Secret default/x: bad", nil, []string{"file.yaml:3: Secret default/x: bad"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := redactText(tt.in)
			for _, l := range tt.leaks {
				if strings.Contains(got, l) {
					t.Errorf("%q survived: %q", l, got)
				}
			}
			for _, k := range tt.keeps {
				if !strings.Contains(got, k) {
					t.Errorf("%q was lost: %q", k, got)
				}
			}
		})
	}
}

func TestRedactingHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(RedactingHandler(slog.NewJSONHandler(&buf, nil))).With("preset", testKey)
	log.Info("message "+testKey, "error", errors.New("wrapped "+testKey), slog.Group("g", "k", testKey))
	if strings.Contains(buf.String(), "MHcCAQEEIBdJ") {
		t.Errorf("a key reached the log: %s", buf.String())
	}
	if strings.Count(buf.String(), redacted) != 4 {
		t.Errorf("want 4 redactions: %s", buf.String())
	}
}

func TestRedactedResources(t *testing.T) {
	inline := func(s string) *corev3.DataSource {
		return &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: []byte(s)}}
	}
	r := &translate.Resources{Secrets: []*tlsv3.Secret{{
		Name: "s",
		Type: &tlsv3.Secret_TlsCertificate{TlsCertificate: &tlsv3.TlsCertificate{
			CertificateChain: inline(testCert),
			PrivateKey:       inline(testKey),
		}},
	}, {
		Name: "file",
		Type: &tlsv3.Secret_TlsCertificate{TlsCertificate: &tlsv3.TlsCertificate{
			PrivateKey: &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: "/etc/key.pem"}},
		}},
	}}}
	got, err := redactedResources(r)
	if err != nil {
		t.Fatal(err)
	}
	if k := got.Secrets[0].GetTlsCertificate().GetPrivateKey().GetInlineString(); k != redacted {
		t.Errorf("private key = %q", k)
	}
	if c := string(got.Secrets[0].GetTlsCertificate().GetCertificateChain().GetInlineBytes()); c != testCert {
		t.Errorf("certificate = %q", c)
	}
	if f := got.Secrets[1].GetTlsCertificate().GetPrivateKey().GetFilename(); f != "/etc/key.pem" {
		t.Errorf("file name = %q", f)
	}
	if k := string(r.Secrets[0].GetTlsCertificate().GetPrivateKey().GetInlineBytes()); k != testKey {
		t.Error("the served resources were modified")
	}
}
