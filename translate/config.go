package translate

import (
	"reflect"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
)

// Contour's configuration file: the settings contourc applies, and notices
// for the ones it does not apply yet, so that a configuration is never
// silently half-used.

// withConfig folds the configuration file into the options; options set
// explicitly win.
func withConfig(opts Options) Options {
	cfg := opts.Config
	if cfg == nil {
		return opts
	}
	if opts.Gateway == nil && cfg.Gateway != nil {
		opts.Gateway = &types.NamespacedName{Namespace: cfg.Gateway.GatewayRef.Namespace, Name: cfg.Gateway.GatewayRef.Name}
	}
	return opts
}

// appliedConfigKeys are the configuration keys contourc honours; keys that
// do not change Envoy's configuration (Contour's own server, Kubernetes
// client, status) are listed too, as nothing is lost by ignoring them.
// Built on first use, not at start-up.
var appliedConfigKeys = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"debug": true, "incluster": true, "kubeconfig": true, "kubernetesClientQPS": true, "kubernetesClientBurst": true,
		"server": true, "ingress-status-address": true, "envoy-service-namespace": true, "envoy-service-name": true,
		"featureFlags": true, "gateway": true, "disablePermitInsecure": true,
		// Applied by config_settings.go and the builders.
		"accesslog-format": true, "accesslog-format-string": true, "json-fields": true, "accesslog-level": true,
		"tls": true, "disableAllowChunkedLength": true, "disableMergeSlashes": true, "compression": true,
		"serverHeaderTransformation": true, "enableExternalNameService": true, "timeouts": true, "policy": true,
		"default-http-versions": true, "cluster": true, "network": true, "listener": true,
		"rateLimitService": true, "globalExtAuth": true, "metrics": true, "tracing": true,
		"omEnforcedHealthListener": true, "runtime-settings": true,
	}
})

// configNotices lists the configuration keys that are set but not applied.
func configNotices(cfg *loader.ContourConfig) []Notice {
	if cfg == nil {
		return nil
	}
	var keys []string
	v := reflect.ValueOf(*cfg)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if key == "" || key == "-" || appliedConfigKeys()[key] || v.Field(i).IsZero() || isDefaultConfigValue(key, v.Field(i)) {
			continue
		}
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var out []Notice
	for _, k := range keys {
		out = append(out, Notice{Kind: "configuration", Msg: k + " is not applied by contourc yet: the output is Contour's default for it"})
	}
	return out
}

// isDefaultConfigValue says whether a set key holds Contour's default,
// which contourc already produces.
func isDefaultConfigValue(key string, v reflect.Value) bool {
	switch key {
	case "accesslog-format":
		return v.String() == "envoy"
	case "accesslog-level":
		return v.String() == "info"
	case "serverHeaderTransformation":
		return v.String() == "overwrite"
	}
	return false
}
