package loader

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// Workloads are the objects that say how Contour is installed: the
// Deployments and DaemonSets that may run `contour serve`, and the
// ContourDeployments a GatewayClass or Gateway points at for the Contour
// the Gateway provisioner starts. They are not objects Contour routes, so
// they are still counted as skipped (-v), but they are kept, undecoded
// beyond JSON as the secret sources are, in Result.Workloads: the
// translate package finds the Contour instances of a repository in them.

// isWorkloadKind reports whether a kind of a group is kept as a workload
// (a switch, not a map: no package initialisation).
func isWorkloadKind(group, kind string) bool {
	switch {
	case group == "apps":
		return kind == "Deployment" || kind == "DaemonSet"
	case group == contourGroup:
		return kind == "ContourDeployment"
	}
	return false
}

// isWorkload reports whether raw is kept as a workload.
func isWorkload(raw rawObject) bool {
	group, _ := splitAPIVersion(raw.apiVersion)
	return isWorkloadKind(group, raw.kind)
}

// isWorkloadObject reports whether a kept unstructured object is a
// workload rather than a secret source.
func isWorkloadObject(o Object) bool {
	u, ok := o.Obj.(*unstructured.Unstructured)
	if !ok {
		return false
	}
	group, _ := splitAPIVersion(u.GetAPIVersion())
	return isWorkloadKind(group, u.GetKind())
}
