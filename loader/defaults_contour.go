package loader

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
)

// CRD defaults of the projectcontour.io kinds, from the
// "+kubebuilder:default" markers of the Go types (the CRD schema in
// examples/contour/01-crds.yaml has the same ones, at every place the type
// is used). Contour's code assumes them: a retry policy without a count
// retries once, a redirect without a status code is a 302.
//
// authorization.serviceType (default "grpc") is newer than the Go types
// this module builds against, which have no such field: its default is
// with the other such fields, in contour_extensions.go.
func init() {
	defaultField(contourv1.AuthorizationServerBufferSettings{}, "maxRequestBytes", "1024")
	defaultField(contourv1.HTTPRequestRedirectPolicy{}, "statusCode", "302")
	defaultField(contourv1.HTTPInternalRedirectPolicy{}, "allowCrossSchemeRedirect", "Never")
	defaultField(contourv1.RequestHeaderValueMatchDescriptor{}, "expectMatch", "true")
	defaultField(contourv1.RetryPolicy{}, "count", "1")
	defaultField(contourv1.SlowStartPolicy{}, "aggression", `"1.0"`)
	defaultField(contourv1.SlowStartPolicy{}, "minWeightPercent", "10")
}
