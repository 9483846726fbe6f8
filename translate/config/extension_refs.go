package config

import (
	"cmp"
	"errors"
	"fmt"

	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
)

// DefaultMaxRequestBytes is the CRD default of withRequestBody.maxRequestBytes.
const DefaultMaxRequestBytes = 1024

// ResolveExtensionRefs finds the ExtensionServices the configuration's rate
// limit service, tracing and global authorization name. Contour reads them
// at start-up and refuses to start without them.
func ResolveExtensionRefs(objs []loader.Object, s *Settings) error {
	find := func(key string, name types.NamespacedName) (*ExtensionRef, error) {
		for _, o := range objs {
			ext, ok := o.Obj.(*contourv1alpha1.ExtensionService)
			if !ok || ext.Namespace != name.Namespace || ext.Name != name.Name {
				continue
			}
			ref := &ExtensionRef{ClusterName: "extension/" + name.Namespace + "/" + name.Name}
			if tp := ext.Spec.TimeoutPolicy; tp != nil {
				t, err := parseConfigTimeoutOrEmpty(tp.Response)
				if err != nil {
					return nil, fmt.Errorf("%s: error parsing extension service %s response timeout: %v", key, name, err)
				}
				ref.Timeout = t
			}
			if uv := ext.Spec.UpstreamValidation; uv != nil {
				ref.SNI = uv.SubjectName
			}
			return ref, nil
		}
		return nil, fmt.Errorf("%s: error getting extension service %s: ExtensionService not found in the input (Contour does not start without it)", key, name)
	}
	var errs []error
	var err error
	if r := s.RateLimitService; r != nil {
		if s.RateLimitExtension, err = find("rateLimitService.extensionService", r.ExtensionService); err != nil {
			errs = append(errs, err)
		}
	}
	if t := s.Tracing; t != nil {
		if s.TracingExtension, err = find("tracing.extensionService", t.ExtensionService); err != nil {
			errs = append(errs, err)
		}
	}
	if a := s.GlobalExtAuth; a != nil {
		name := types.NamespacedName{Namespace: a.ExtensionServiceRef.Namespace, Name: a.ExtensionServiceRef.Name}
		ref, err := find("globalExtAuth.extensionService", name)
		if err != nil {
			errs = append(errs, err)
		} else {
			timeout, err := dag.ParseTimeout(a.ResponseTimeout)
			if err != nil {
				errs = append(errs, fmt.Errorf("globalExtAuth.responseTimeout: %w", err))
			}
			if !timeout.Set {
				timeout = ref.Timeout
			}
			g := &dag.ExternalAuthorization{
				Extension:       &dag.ExtensionCluster{Namespace: name.Namespace, Name: name.Name, SNI: ref.SNI},
				FailOpen:        a.FailOpen,
				ResponseTimeout: timeout,
			}
			// Its problems were reported with the settings
			// (validateGlobalAuth), which then are not used.
			_ = ApplyAuthorizationServiceType(g, a.AuthPolicy, s.GlobalExtAuthExtensions)
			if b := a.WithRequestBody; b != nil {
				g.WithRequestBody = &dag.RequestBodyBuffer{MaxRequestBytes: cmp.Or(b.MaxRequestBytes, DefaultMaxRequestBytes), AllowPartialMessage: b.AllowPartialMessage, PackAsBytes: b.PackAsBytes}
			}
			s.ResolvedGlobalExtAuth = g
		}
	}
	return errors.Join(errs...)
}

// parseConfigTimeoutOrEmpty is parseConfigTimeout with "" as the default.
func parseConfigTimeoutOrEmpty(v string) (dag.Timeout, error) {
	if v == "" {
		return dag.Timeout{}, nil
	}
	return ParseTimeout(v)
}
