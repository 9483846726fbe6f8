package config

import (
	"reflect"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/internal/status"
)

// Contour's configuration file: the settings contourc applies, and notices
// for the ones it does not apply yet, so that a configuration is never
// silently half-used.

// Notice is something a user should know about the configuration, or
// about an object, that is not an error: translate's Notice, which the
// processors write too.
type Notice = status.Notice

// FileGateway is the Gateway a configuration file names (gateway.gatewayRef),
// nil when it names none.
func FileGateway(cfg *loader.ContourConfig) *types.NamespacedName {
	if cfg == nil || cfg.Gateway == nil {
		return nil
	}
	return &types.NamespacedName{Namespace: cfg.Gateway.GatewayRef.Namespace, Name: cfg.Gateway.GatewayRef.Name}
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
		// Applied by settings.go and sources.go and the builders.
		"accesslog-format": true, "accesslog-format-string": true, "json-fields": true, "accesslog-level": true,
		"tls": true, "disableAllowChunkedLength": true, "disableMergeSlashes": true, "compression": true,
		"serverHeaderTransformation": true, "enableExternalNameService": true, "timeouts": true, "policy": true,
		"default-http-versions": true, "cluster": true, "network": true, "listener": true,
		"rateLimitService": true, "globalExtAuth": true, "metrics": true, "tracing": true,
		"omEnforcedHealthListener": true, "runtime-settings": true,
	}
})

// UnappliedNotices lists the configuration keys that are set but not applied.
func UnappliedNotices(cfg *loader.ContourConfig) []Notice {
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
