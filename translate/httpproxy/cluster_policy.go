package httpproxy

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
)

// Per-cluster HTTPProxy policies: active health checks, slow start and
// upstream certificate validation.

// httpHealthCheck converts healthCheckPolicy; status ranges are half-open,
// as in Envoy.
func httpHealthCheck(hc *contourv1.HTTPHealthCheckPolicy) (*dag.HTTPHealthCheck, error) {
	if hc == nil {
		return nil, nil
	}
	out := &dag.HTTPHealthCheck{
		Path:               hc.Path,
		Host:               hc.Host,
		Interval:           time.Duration(hc.IntervalSeconds) * time.Second,
		Timeout:            time.Duration(hc.TimeoutSeconds) * time.Second,
		UnhealthyThreshold: uint32(hc.UnhealthyThresholdCount),
		HealthyThreshold:   uint32(hc.HealthyThresholdCount),
	}
	for _, r := range hc.ExpectedStatuses {
		if r.Start < 100 || r.Start > 599 {
			return nil, errors.New("invalid expected status range: start must be in the range [100, 599]")
		}
		if r.End < 101 || r.End > 600 {
			return nil, errors.New("invalid expected status range: end must be in the range [101, 600]")
		}
		out.ExpectedStatuses = append(out.ExpectedStatuses, [2]int64{r.Start, r.End})
	}
	return out, nil
}

// tcpHealthCheck converts a tcpproxy's healthCheckPolicy.
func tcpHealthCheck(hc *contourv1.TCPHealthCheckPolicy) *dag.TCPHealthCheck {
	if hc == nil {
		return nil
	}
	return &dag.TCPHealthCheck{
		Interval:           time.Duration(hc.IntervalSeconds) * time.Second,
		Timeout:            time.Duration(hc.TimeoutSeconds) * time.Second,
		UnhealthyThreshold: hc.UnhealthyThresholdCount,
		HealthyThreshold:   hc.HealthyThresholdCount,
	}
}

// slowStart converts slowStartPolicy; aggression defaults to 1.0.
func slowStart(s *contourv1.SlowStartPolicy) (*dag.SlowStart, error) {
	window, err := time.ParseDuration(s.Window)
	if err != nil {
		return nil, fmt.Errorf("error parsing window: %s", err)
	}
	aggression := 1.0
	if s.Aggression != "" {
		if aggression, err = strconv.ParseFloat(s.Aggression, 64); err != nil {
			return nil, fmt.Errorf("error parsing aggression: \"%s\" is not a decimal number", s.Aggression)
		}
	}
	return &dag.SlowStart{Window: window, Aggression: aggression, MinWeightPercent: s.MinimumWeightPercent}, nil
}

// upstreamValidation resolves a service's CA Secret in c (delegation
// needed across namespaces) and subject names; the first subject name
// must be subjectName.
func upstreamValidation(c *index.Index, uv *contourv1.UpstreamValidation, fromNamespace string) (*dag.UpstreamValidation, error) {
	name := index.SecretReference(uv.CACertificate, "", fromNamespace)
	ca, err := c.LookupCASecret(name, fromNamespace)
	if _, denied := err.(index.DelegationNotPermittedError); err != nil && !denied {
		err = fmt.Errorf("invalid CA Secret %q: %s", name, err)
	}
	if err != nil {
		return nil, err
	}
	out := &dag.UpstreamValidation{CAName: name.Name, CANamespace: name.Namespace, CACert: ca}
	if uv.SubjectName == "" {
		return nil, errors.New("missing subject alternative name")
	}
	switch {
	case len(uv.SubjectNames) == 0:
		out.SubjectNames = []string{uv.SubjectName}
	case uv.SubjectName != uv.SubjectNames[0]:
		return nil, fmt.Errorf("first entry of SubjectNames (%s) does not match SubjectName (%s)", uv.SubjectNames[0], uv.SubjectName)
	default:
		out.SubjectNames = uv.SubjectNames
	}
	return out, nil
}
