package diff

import (
	"reflect"

	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
)

// diffSecrets compares SDS secrets by name (old names already rewritten to
// the new ones where a certificate was rotated; was maps them back). The
// certificates are compared by what certInfo reads from them, private keys
// by keyChange (oldKeys and newKeys are the unredacted keys, from
// secretKeys, under each side's own names), the rest of a secret field by
// field; keys were redacted before.
func diffSecrets(old, new []*tlsv3.Secret, was map[string]string, oldKeys, newKeys map[string]keyPair) []SecretChange {
	olds, news := byName(old, (*tlsv3.Secret).GetName), byName(new, (*tlsv3.Secret).GetName)
	var out []SecretChange
	for _, name := range unionKeys(olds, news) {
		o, n := olds[name], news[name]
		switch {
		case o == nil:
			typ, info := secretCert(n)
			out = append(out, SecretChange{Op: Added, Name: name, Type: typ, New: info})
		case n == nil:
			typ, info := secretCert(o)
			out = append(out, SecretChange{Op: Removed, Name: name, Type: typ, Old: info})
		default:
			typ, oi := secretCert(o)
			_, ni := secretCert(n)
			fields := fieldDiff(withoutCerts(o), withoutCerts(n))
			oldName := name
			if was[name] != "" {
				oldName = was[name]
			}
			keyChanged, oldKey, newKey := keyChange(oldKeys[oldName], newKeys[name])
			if was[name] == "" && reflect.DeepEqual(oi, ni) && len(fields) == 0 && !keyChanged {
				continue
			}
			c := SecretChange{Op: Changed, Name: name, OldName: was[name], Type: typ, Old: oi, New: ni, Fields: fields}
			if keyChanged {
				c.OldKey, c.NewKey = oldKey, newKey
			}
			out = append(out, c)
		}
	}
	return out
}

// secretCert names the kind of a secret and reads its certificates: the
// chain of a TLS certificate, the CA bundle of a validation context.
func secretCert(s *tlsv3.Secret) (string, *CertInfo) {
	switch t := s.GetType().(type) {
	case *tlsv3.Secret_TlsCertificate:
		return "tls_certificate", certInfo(t.TlsCertificate.GetCertificateChain())
	case *tlsv3.Secret_ValidationContext:
		return "validation_context", certInfo(t.ValidationContext.GetTrustedCa())
	case *tlsv3.Secret_SessionTicketKeys:
		return "session_ticket_keys", nil
	case *tlsv3.Secret_GenericSecret:
		return "generic_secret", nil
	default:
		return "unknown", nil
	}
}

// withoutCerts is s without its name, the certificates secretCert reads
// and the private key (compared as KeyInfo), leaving the settings to
// compare field by field.
func withoutCerts(s *tlsv3.Secret) *tlsv3.Secret {
	c := proto.Clone(s).(*tlsv3.Secret)
	c.Name = ""
	if tc := c.GetTlsCertificate(); tc != nil {
		tc.CertificateChain = nil
		tc.PrivateKey = nil
	}
	if vc := c.GetValidationContext(); vc != nil {
		vc.TrustedCa = nil
	}
	return c
}
