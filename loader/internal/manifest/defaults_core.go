package manifest

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// addCoreDefaults adds the defaults the API server applies in code to
// fields of the built-in kinds Contour reads (k8s.io/kubernetes
// pkg/apis/core/v1/defaults.go and its discovery counterpart), limited to
// the fields Contour looks at. The decoder applies them wherever the type
// appears; the defaults that depend on other fields are loader/builtin's
// Finish functions.
func (rules fieldRuleSet) addCoreDefaults() {
	rules.defaultField(corev1.ServicePort{}, "protocol", "TCP")
	rules.defaultField(corev1.EndpointPort{}, "protocol", "TCP")
	rules.defaultField(discoveryv1.EndpointPort{}, "protocol", "TCP")
	rules.defaultField(discoveryv1.EndpointPort{}, "name", `""`)
}
