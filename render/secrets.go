package render

// The static_resources.secrets of a static bootstrap.

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/translate"
)

// staticSecrets returns secrets, sorted by name: copies, unless shared.
// Listeners and clusters refer to them by name once their SDS config
// sources are gone (see staticSecretRef).
func staticSecrets(secrets []*tlsv3.Secret, shared bool) []*tlsv3.Secret {
	out := sortedByName(secrets, (*tlsv3.Secret).GetName)
	if !shared {
		for i, s := range out {
			out[i] = proto.Clone(s).(*tlsv3.Secret)
		}
	}
	return out
}

// HoldsKeyMaterial reports whether rendering r writes secret material: a
// TLS private key, session ticket keys or a generic secret. Contour serves
// all of them as SDS secrets, and listeners and clusters only name those,
// so only the secrets are looked at; validation contexts hold CA
// certificates, which are public.
func HoldsKeyMaterial(r *translate.Resources) bool {
	for _, s := range r.Secrets {
		switch t := s.GetType().(type) {
		case *tlsv3.Secret_TlsCertificate:
			if t.TlsCertificate.GetPrivateKey() != nil {
				return true
			}
		case *tlsv3.Secret_SessionTicketKeys, *tlsv3.Secret_GenericSecret:
			return true
		}
	}
	return false
}
