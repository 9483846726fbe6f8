package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The HTTP and HTTPS listeners' addresses and ports come from `contour
// serve`'s flags or a ContourConfiguration's spec.envoy.http and .https.
// Contour copies them into Envoy's listeners unchecked, and the results
// fail late: a port above 65535 only as a protobuf validation dump, an
// address that is not an IP (Envoy binds listeners to IP literals only) or
// both listeners on one address and port only when Envoy cannot bind them.
// contourc refuses them up front, naming the flag or field.

// The listeners of `contour serve`.
const (
	HTTPListenerName  = "ingress_http"
	HTTPSListenerName = "ingress_https"
)

// portRangeMsg is the API server's wording for a port out of range
// (k8s.io/apimachinery's validation.InclusiveRangeError).
const portRangeMsg = "must be between 1 and 65535, inclusive"

// ipMsg is the API server's wording for an address that is not an IP.
const ipMsg = "must be a valid IP address"

// Validate checks the listener flags as flags: an address must be an IP
// literal, a port in 1..65535 (0 is "not given"), and the two listeners,
// with Contour's defaults for what is not given, must not share an address
// and port. Errors are worded as pflag words a bad flag value.
func (f ServeFlags) Validate() error {
	for _, a := range []struct{ flag, value string }{
		{"envoy-service-http-address", f.HTTPAddress}, {"envoy-service-https-address", f.HTTPSAddress},
	} {
		if a.value != "" && net.ParseIP(a.value) == nil {
			return flagError(a.flag, a.value, ipMsg)
		}
	}
	for _, p := range []struct {
		flag  string
		value int
	}{{"envoy-service-http-port", f.HTTPPort}, {"envoy-service-https-port", f.HTTPSPort}} {
		if p.value < 0 || p.value > 65535 {
			return flagError(p.flag, strconv.Itoa(p.value), portRangeMsg)
		}
	}
	http := listenAddress(f.HTTPAddress, f.HTTPPort, defaultHTTPPort)
	https := listenAddress(f.HTTPSAddress, f.HTTPSPort, defaultHTTPSPort)
	if http != https {
		return nil
	}
	// Blame the port flag given last: at least one was, since the
	// defaults differ.
	if f.HTTPSPort != 0 {
		return flagError("envoy-service-https-port", strconv.Itoa(f.HTTPSPort), "the "+HTTPListenerName+" listener is on "+http+" already")
	}
	return flagError("envoy-service-http-port", strconv.Itoa(f.HTTPPort), "the "+HTTPSListenerName+" listener is on "+https+" already")
}

// flagError is pflag's message for a flag value it cannot take.
func flagError(flag, value, why string) error {
	return fmt.Errorf("invalid argument %q for \"--%s\" flag: %s", value, flag, why)
}

// listenAddress is address:port with Contour's defaults for what is not
// given, the IP in its canonical form (so ::0 and :: are one address).
func listenAddress(address string, port int, defaultPort uint32) string {
	if address == "" {
		address = defaultHTTPAddress
	}
	if ip := net.ParseIP(address); ip != nil {
		address = ip.String()
	}
	if port == 0 {
		port = int(defaultPort)
	}
	return net.JoinHostPort(address, strconv.Itoa(port))
}

// validateCRDListeners checks a ContourConfiguration's spec.envoy.http and
// spec.envoy.https as Validate checks the flags, on the settings they
// resolved to; errors name the field, as the API server does.
func validateCRDListeners(e *contourv1alpha1.EnvoyConfig, s *Settings) error {
	var errs field.ErrorList
	envoy := field.NewPath("spec", "envoy")
	for _, l := range []struct {
		name string
		l    *contourv1alpha1.EnvoyListener
	}{{"http", e.HTTPListener}, {"https", e.HTTPSListener}} {
		if l.l == nil {
			continue
		}
		if l.l.Address != "" && net.ParseIP(l.l.Address) == nil {
			errs = append(errs, field.Invalid(envoy.Child(l.name, "address"), l.l.Address, ipMsg))
		}
		if l.l.Port < 0 || l.l.Port > 65535 {
			errs = append(errs, field.Invalid(envoy.Child(l.name, "port"), l.l.Port, portRangeMsg))
		}
	}
	if len(errs) == 0 {
		http := listenAddress(s.HTTPAddress, int(s.HTTPPort), defaultHTTPPort)
		if https := listenAddress(s.HTTPSAddress, int(s.HTTPSPort), defaultHTTPSPort); http == https {
			errs = append(errs, field.Invalid(envoy.Child("https"), https, "must not be the address and port of spec.envoy.http"))
		}
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return errors.Join(out...)
}
