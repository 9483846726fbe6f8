package config

import "testing"

// TestServeFlagsValidateAccepts: listener flags Envoy can take pass, the
// two listeners may share a port on different addresses or swap ports.
func TestServeFlagsValidateAccepts(t *testing.T) {
	for _, f := range []ServeFlags{
		{},
		{HTTPPort: 1, HTTPSPort: 65535},
		{HTTPPort: 8443, HTTPSPort: 8080},
		{HTTPSAddress: "127.0.0.1", HTTPSPort: 8080},
		{HTTPAddress: "::", HTTPSAddress: "0.0.0.0", HTTPSPort: 8080},
		{HTTPAddress: "fe80::1", HTTPSAddress: "192.0.2.1"},
	} {
		if err := f.Validate(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
}
