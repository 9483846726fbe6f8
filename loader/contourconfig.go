package loader

import "github.com/contourc/contourc/loader/contourconfig"

// Contour's configuration file is decoded and checked by
// loader/contourconfig; these names are the loader's API for it.
type (
	// ContourConfig is Contour's configuration file.
	ContourConfig = contourconfig.Config
	// ConfigNamespacedName names an object; both parts or neither.
	ConfigNamespacedName = contourconfig.NamespacedName
	// ConfigTLSProtocol are TLS versions, ciphers and curves.
	ConfigTLSProtocol = contourconfig.ConfigTLSProtocol
	// ConfigTimeouts are the connection and stream timeouts.
	ConfigTimeouts = contourconfig.Timeouts
	// ConfigRateLimitService is the global rate limit service.
	ConfigRateLimitService = contourconfig.RateLimitService
	// ConfigNetwork are network settings.
	ConfigNetwork = contourconfig.Network
	// ConfigMetricsServer is one metrics server.
	ConfigMetricsServer = contourconfig.MetricsServer
)

// LoadContourConfig reads a Contour configuration file. Errors name the
// file and line.
func LoadContourConfig(path string, opts Options) (*ContourConfig, error) {
	name, root, err := readYAMLDocument(path, opts)
	if err != nil {
		return nil, err
	}
	return contourconfig.Decode(name, root)
}
