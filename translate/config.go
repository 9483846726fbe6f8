package translate

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
)

// The translate side of Contour's configuration: translate/config resolves
// it from the Options' sources into config.Settings; here the Options are
// handed over, and its notices become Result's.

// resolveSettings picks the configuration source, applies flags and
// returns the settings with the notices they call for (config.Resolve).
func resolveSettings(objs []loader.Object, opts Options) (*config.Settings, *loader.ContourConfig, []Notice, error) {
	s, cfg, notices, err := config.Resolve(objs, config.Sources{
		Config: opts.Config, ContourConfiguration: opts.ContourConfiguration, ConfigMap: opts.ConfigMap,
		RuntimeSettings: opts.RuntimeSettings, Gateway: opts.Gateway, Flags: opts.Flags,
	})
	return s, cfg, notices, err
}

// withConfig folds the configuration file into the options; options set
// explicitly win.
func withConfig(opts Options) Options {
	if opts.Gateway == nil {
		opts.Gateway = config.FileGateway(opts.Config)
	}
	return opts
}

// ConfiguredSecrets are the Secrets Contour's configuration names rather
// than an object does, nil for those it does not name.
type ConfiguredSecrets struct {
	// FallbackCertificate is the configuration file's
	// tls.fallback-certificate (a ContourConfiguration's
	// spec.httpproxy.fallbackCertificate).
	FallbackCertificate *types.NamespacedName
	// ClientCertificate is tls.envoy-client-certificate
	// (spec.envoy.clientCertificate).
	ClientCertificate *types.NamespacedName
}

// ConfiguredSecretsOf resolves the configuration Translate(objs, opts)
// would (from opts' sources, among objs and opts.Cluster) and returns the
// Secrets it names, so that stand-ins (loader/standin) can be made for
// them before translating. A configuration that does not resolve names
// none: Translate reports why.
func ConfiguredSecretsOf(objs []loader.Object, opts Options) ConfiguredSecrets {
	if len(opts.Cluster) > 0 {
		objs, _, _ = withCluster(inOrder(objs), inOrder(opts.Cluster))
	}
	s, _, _, err := resolveSettings(objs, opts)
	if err != nil {
		return ConfiguredSecrets{}
	}
	return ConfiguredSecrets{FallbackCertificate: s.FallbackCertificate, ClientCertificate: s.ClientCertificate}
}
