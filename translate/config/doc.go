// Package config resolves Contour's configuration into the one Settings
// value the processors and the Envoy builders of translate read: the
// configuration file (or a `contour` ConfigMap holding it), a
// ContourConfiguration object or a ContourDeployment's runtimeSettings, and
// the `contour serve` flags (ServeFlags) over them, with Contour's defaults
// for what none of them sets and the checks Contour makes at start-up.
//
// It also says which objects the flags let Contour see (FilterObjects) and
// what a user should know about the configuration (Notice): keys contourc
// does not apply, fields only Contour's main branch has. It finds the
// ExtensionServices the configuration names (ResolveExtensionRefs) and
// applies its defaults to what every processor builds (WithDefaultHeaders,
// WithDefaultCircuitBreakers).
//
// It sits below the processors and the builders: it imports translate/dag
// for the values settings are made of, translate/internal/httpheader for
// header checks, and nothing else of translate.
package config
