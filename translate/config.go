package translate

import (
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
