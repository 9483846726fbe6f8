package flux

import (
	"github.com/contourc/contourc/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// helmRelease is the entry of a Flux HelmRelease (helmrelease.go has the
// rendering).
func (f *Follower) helmRelease(in *loader.FollowInput, o loader.Object, u *unstructured.Unstructured) loader.Entry {
	return notFollowed(o, "HelmReleases are not followed yet")
}
