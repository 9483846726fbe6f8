// Package object defines the decoded object and the warning, which the
// load makes and loader/follow hands back and forth with it. They are the
// loader's API as loader.Object and loader.Warning; they sit here, below
// both, so that the following engine need not import the loader.
package object

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/mainbranch"
)

// Source says where an object was read from.
type Source = manifest.Source

// Object is one decoded object and its source.
//
// Obj is always a pointer to the typed struct of the internal version of its
// kind (see loader.Kinds), e.g. *networkingv1.Ingress, *contourv1.HTTPProxy,
// *gatewayv1.Gateway, *discoveryv1.EndpointSlice.
type Object struct {
	Kind   string
	Source Source
	Obj    metav1.Object
	// APIVersion is the apiVersion as written in the input (e.g.
	// gateway.networking.k8s.io/v1beta1), before conversion to the internal
	// version that Obj's TypeMeta carries. Empty for objects the loader made
	// itself (EndpointSlices mirrored from Endpoints).
	APIVersion string
	// Extensions are the fields of Contour's main branch that Obj's Go
	// type lacks (see loader/mainbranch); nil when the object uses
	// none, and always nil for kinds other than HTTPProxy and
	// ContourConfiguration.
	Extensions *mainbranch.Extensions
	// StandIn, for an object the standin package made in place of one
	// the input lacks, says what it stands for ("Certificate web/web");
	// empty for objects read from the input.
	StandIn string
}

// Warning is something a load went past rather than fail.
type Warning struct {
	Source Source
	Msg    string
	// Skipped is set when something was left out or skipped (check
	// --fail-on skipped), unset for kustomize's deprecation warnings.
	Skipped bool
}

func (w Warning) String() string { return w.Source.String() + ": " + w.Msg }
