package standin

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// want is a Secret some object stands for.
type want struct {
	secret     Ref
	secretType corev1.SecretType
	keys       []string     // the data keys it has, besides a certificate's
	cert       *certRequest // its certificate; nil: for the names of its referrers
	forWhat    string       // what it stands for: "Certificate web/web"
	source     loader.Source
	// rank orders the sources of one Secret: an explicit Certificate
	// over a SealedSecret over ... over --assume-secret.
	rank int
}

const (
	rankCertificate = iota
	rankSealedSecret
	rankSOPS
	rankExternalSecret
	rankIngressShim
	rankGatewayShim
	rankAssumed
)

// The cert-manager annotations that make its shims issue a certificate
// for an Ingress's or Gateway's TLS Secrets.
const (
	annotationClusterIssuer = "cert-manager.io/cluster-issuer"
	annotationIssuer        = "cert-manager.io/issuer"
	annotationTLSACME       = "kubernetes.io/tls-acme"
	annotationCommonName    = "cert-manager.io/common-name"
	annotationKeyAlgorithm  = "cert-manager.io/private-key-algorithm"
	annotationKeySize       = "cert-manager.io/private-key-size"
	annotationKeyEncoding   = "cert-manager.io/private-key-encoding"
)

// sourceWant is what a secret source the loader kept stands for.
func sourceWant(o loader.Object) (want, error) {
	u := o.Obj.(*unstructured.Unstructured)
	self := o.Kind + " " + u.GetNamespace() + "/" + u.GetName()
	w := want{source: o.Source}
	switch o.Kind {
	case "Certificate":
		return certificateWant(u, o.Source, self)
	case "SealedSecret":
		var s struct {
			Spec struct {
				EncryptedData map[string]any `json:"encryptedData"`
				Template      struct {
					Type corev1.SecretType `json:"type"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := fromUnstructured(u, &s); err != nil {
			return w, err
		}
		w.secret, w.secretType, w.keys = Ref{"Secret", u.GetNamespace(), u.GetName()}, s.Spec.Template.Type, sortedKeys(s.Spec.EncryptedData)
		w.forWhat, w.rank = self, rankSealedSecret
	case "ExternalSecret":
		var s struct {
			Spec struct {
				Target struct {
					Name     string `json:"name"`
					Template struct {
						Type corev1.SecretType `json:"type"`
						Data map[string]any    `json:"data"`
					} `json:"template"`
				} `json:"target"`
				Data []struct {
					SecretKey string `json:"secretKey"`
				} `json:"data"`
			} `json:"spec"`
		}
		if err := fromUnstructured(u, &s); err != nil {
			return w, err
		}
		name := s.Spec.Target.Name
		if name == "" {
			name = u.GetName() // external-secrets' default
		}
		keys := sortedKeys(s.Spec.Target.Template.Data)
		for _, d := range s.Spec.Data {
			keys = append(keys, d.SecretKey)
		}
		w.secret, w.secretType, w.keys = Ref{"Secret", u.GetNamespace(), name}, s.Spec.Target.Template.Type, keys
		w.forWhat, w.rank = self, rankExternalSecret
	case "Secret": // encrypted by SOPS: its keys only, never its values
		var s struct {
			Type       corev1.SecretType `json:"type"`
			Data       map[string]any    `json:"data"`
			StringData map[string]any    `json:"stringData"`
		}
		if err := fromUnstructured(u, &s); err != nil {
			return w, err
		}
		w.secret, w.secretType = Ref{"Secret", u.GetNamespace(), u.GetName()}, s.Type
		w.keys = append(sortedKeys(s.Data), sortedKeys(s.StringData)...)
		w.forWhat, w.rank = "SOPS-encrypted "+self, rankSOPS
	}
	if w.secretType == "" {
		w.secretType = corev1.SecretTypeOpaque // the API server's default
	}
	return w, nil
}

// certificateWant reads a cert-manager Certificate: v1 and v1beta1 have
// privateKey.{algorithm,size,encoding}; v1alpha2 and v1alpha3 had
// keyAlgorithm, keySize and keyEncoding (lower case) in spec itself.
func certificateWant(u *unstructured.Unstructured, src loader.Source, self string) (want, error) {
	var c struct {
		Spec struct {
			SecretName  string   `json:"secretName"`
			CommonName  string   `json:"commonName"`
			DNSNames    []string `json:"dnsNames"`
			IPAddresses []string `json:"ipAddresses"`
			IsCA        bool     `json:"isCA"`
			PrivateKey  struct {
				Algorithm string `json:"algorithm"`
				Size      int    `json:"size"`
				Encoding  string `json:"encoding"`
			} `json:"privateKey"`
			KeyAlgorithm string `json:"keyAlgorithm"`
			KeySize      int    `json:"keySize"`
			KeyEncoding  string `json:"keyEncoding"`
		} `json:"spec"`
	}
	if err := fromUnstructured(u, &c); err != nil {
		return want{}, err
	}
	s := c.Spec
	if s.SecretName == "" {
		return want{}, fmt.Errorf("spec.secretName: Required value")
	}
	alg, size, enc := s.PrivateKey.Algorithm, s.PrivateKey.Size, s.PrivateKey.Encoding
	if alg == "" && size == 0 && enc == "" {
		alg, size, enc = s.KeyAlgorithm, s.KeySize, s.KeyEncoding
	}
	req, err := keyRequest(alg, size, enc)
	if err != nil {
		return want{}, fmt.Errorf("spec.privateKey: %w", err)
	}
	req.commonName, req.dnsNames, req.isCA = s.CommonName, s.DNSNames, s.IsCA
	for _, ip := range s.IPAddresses {
		parsed := net.ParseIP(ip)
		if parsed == nil {
			return want{}, fmt.Errorf("spec.ipAddresses: Invalid value: %q: not an IP address", ip)
		}
		req.ips = append(req.ips, parsed)
	}
	return want{
		secret: Ref{"Secret", u.GetNamespace(), s.SecretName}, secretType: corev1.SecretTypeTLS,
		cert: &req, forWhat: self, source: src, rank: rankCertificate,
	}, nil
}

// keyRequest reads cert-manager's private key settings, in any case (the
// older APIs wrote rsa, ecdsa, pkcs1).
func keyRequest(alg string, size int, encoding string) (certRequest, error) {
	var req certRequest
	switch strings.ToLower(alg) {
	case "", "rsa":
		req.alg = RSA
	case "ecdsa":
		req.alg = ECDSA
	case "ed25519":
		req.alg = Ed25519
	default:
		return req, fmt.Errorf("algorithm: Unsupported value: %q: supported values: \"RSA\", \"ECDSA\", \"Ed25519\"", alg)
	}
	switch strings.ToLower(encoding) {
	case "", "pkcs1":
	case "pkcs8":
		req.pkcs8 = true
	default:
		return req, fmt.Errorf("encoding: Unsupported value: %q: supported values: \"PKCS1\", \"PKCS8\"", encoding)
	}
	req.size = size
	if _, err := newKeySizeCheck(req.alg, size); err != nil {
		return req, err
	}
	return req, nil
}

// newKeySizeCheck refuses the sizes newKey would, without making a key.
func newKeySizeCheck(alg KeyAlgorithm, size int) (bool, error) {
	switch alg {
	case RSA:
		if size != 0 && (size < 2048 || size > 8192) {
			return false, fmt.Errorf("size: Invalid value: %d: RSA keys are 2048 to 8192 bits", size)
		}
	case ECDSA:
		if size != 0 && size != 256 && size != 384 && size != 521 {
			return false, fmt.Errorf("size: Invalid value: %d: ECDSA keys are 256, 384 or 521 bits", size)
		}
	}
	return true, nil
}

// shimWants are the Secrets cert-manager's ingress-shim and gateway-shim
// would issue for the annotated Ingresses and Gateways among objs.
func shimWants(objs []loader.Object) ([]want, []error) {
	var out []want
	var errs []error
	for _, o := range objs {
		switch obj := o.Obj.(type) {
		case *networkingv1.Ingress:
			if !shimAnnotated(obj.Annotations, true) {
				continue
			}
			req, err := annotationKeyRequest(obj.Annotations)
			if err != nil {
				errs = append(errs, objectError(o, err))
				continue
			}
			for _, t := range obj.Spec.TLS {
				if t.SecretName == "" {
					continue // cert-manager skips an entry without a Secret
				}
				r := req
				r.dnsNames = slices.Clone(t.Hosts)
				out = append(out, want{
					secret: Ref{"Secret", obj.Namespace, t.SecretName}, secretType: corev1.SecretTypeTLS,
					cert: &r, forWhat: "Ingress " + obj.Namespace + "/" + obj.Name, source: o.Source, rank: rankIngressShim,
				})
			}
		case *gatewayv1.Gateway:
			if !shimAnnotated(obj.Annotations, false) {
				continue
			}
			req, err := annotationKeyRequest(obj.Annotations)
			if err != nil {
				errs = append(errs, objectError(o, err))
				continue
			}
			out = append(out, gatewayShimWants(obj, req, o.Source)...)
		}
	}
	return out, errs
}

// gatewayShimWants are the gateway-shim's Secrets of g: one per
// certificateRef in g's own namespace (it issues none for another
// namespace) of a listener with a hostname.
func gatewayShimWants(g *gatewayv1.Gateway, req certRequest, src loader.Source) []want {
	var out []want
	for _, l := range g.Spec.Listeners {
		if l.TLS == nil || l.Hostname == nil {
			continue
		}
		for _, c := range l.TLS.CertificateRefs {
			if !isSecretRef(c) || (c.Namespace != nil && string(*c.Namespace) != g.Namespace) {
				continue
			}
			r := req
			r.dnsNames = []string{string(*l.Hostname)}
			out = append(out, want{
				secret: Ref{"Secret", g.Namespace, string(c.Name)}, secretType: corev1.SecretTypeTLS,
				cert: &r, forWhat: "Gateway " + g.Namespace + "/" + g.Name, source: src, rank: rankGatewayShim,
			})
		}
	}
	return out
}

// shimAnnotated reports whether the annotations ask cert-manager for a
// certificate; the legacy kubernetes.io/tls-acme only works on Ingresses.
func shimAnnotated(a map[string]string, ingress bool) bool {
	if a[annotationClusterIssuer] != "" || a[annotationIssuer] != "" {
		return true
	}
	return ingress && a[annotationTLSACME] == "true"
}

// annotationKeyRequest reads the shim's certificate annotations.
func annotationKeyRequest(a map[string]string) (certRequest, error) {
	size := 0
	if s := a[annotationKeySize]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return certRequest{}, fmt.Errorf("metadata.annotations[%s]: Invalid value: %q: not a number", annotationKeySize, s)
		}
		size = n
	}
	req, err := keyRequest(a[annotationKeyAlgorithm], size, a[annotationKeyEncoding])
	if err != nil {
		return req, fmt.Errorf("metadata.annotations: %w", err)
	}
	req.commonName = a[annotationCommonName]
	return req, nil
}

// fromUnstructured reads the fields of u that out has, ignoring the rest.
func fromUnstructured(u *unstructured.Unstructured, out any) error {
	b, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// objectError is err about o, placed as the loader places its errors.
func objectError(o loader.Object, err error) error {
	return &loader.Error{Source: o.Source, Kind: o.Kind, Namespace: o.Obj.GetNamespace(), Name: o.Obj.GetName(), Msg: "cannot make its stand-in: " + err.Error()}
}
