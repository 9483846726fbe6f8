package diff

import "github.com/contourc/contourc/translate"

// Side is one of the two translations to compare.
type Side struct {
	Resources *translate.Resources
	// Objects are the verdicts on the objects that carry status.
	Objects []Object
}

// Compare describes what changed from old to new. Neither side is
// modified: the comparison runs on redacted copies (private keys are
// compared on the originals, by diffSecrets).
func Compare(old, new Side) *Report {
	o, n := redact(old.Resources, plainKey), redact(new.Resources, plainKey)
	rn := resourceRenames(o, n)
	rn.apply(o)
	was := rn.oldNames()
	return &Report{
		Listeners:    diffListeners(o.Listeners, n.Listeners),
		VirtualHosts: diffRouteConfigs(o.RouteConfigs, n.RouteConfigs, routeConfigListeners(o.Listeners), routeConfigListeners(n.Listeners)),
		Clusters:     diffClusters(o.Clusters, n.Clusters, was),
		Endpoints:    diffEndpoints(o.Endpoints, n.Endpoints),
		Secrets:      diffSecrets(o.Secrets, n.Secrets, was, secretKeys(old.Resources.Secrets), secretKeys(new.Resources.Secrets)),
		Runtimes:     diffRuntimes(o, n),
		Status:       diffStatus(old.Objects, new.Objects),
	}
}
