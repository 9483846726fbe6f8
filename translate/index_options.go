package translate

import (
	"slices"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag/index"
)

// indexOptions are the values of opts and of the configuration's settings
// s the object index applies.
func indexOptions(opts Options, s *config.Settings) index.Options {
	return index.Options{
		IngressClassNames:    opts.IngressClassNames,
		SecretNamespaces:     secretNamespaces(opts),
		ClientCertificate:    s.ClientCertificate,
		ExternalNameServices: s.EnableExternalNameService,
	}
}

// secretNamespaces are the namespaces whose Secrets Contour sees, sorted,
// nil for all. With root namespaces its Secret informer watches only
// those, plus the namespaces of the configured fallback and client
// certificates.
func secretNamespaces(opts Options) []string {
	if len(opts.RootNamespaces) == 0 {
		return nil
	}
	watched := slices.Clone(opts.RootNamespaces)
	if cfg := opts.Config; cfg != nil {
		for _, ref := range []loader.ConfigNamespacedName{cfg.TLS.FallbackCertificate, cfg.TLS.ClientCertificate} {
			if ref.Name != "" {
				watched = append(watched, ref.Namespace)
			}
		}
	}
	slices.Sort(watched)
	return slices.Compact(watched)
}
