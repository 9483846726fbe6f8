package dag

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// HTTPHealthCheck is an active HTTP health check of a cluster's hosts.
type HTTPHealthCheck struct {
	Path, Host                           string
	Interval, Timeout                    time.Duration
	UnhealthyThreshold, HealthyThreshold uint32
	ExpectedStatuses                     [][2]int64
}

// TCPHealthCheck is an active TCP connect health check.
type TCPHealthCheck struct {
	Interval, Timeout                    time.Duration
	UnhealthyThreshold, HealthyThreshold uint32
}

// SlowStart ramps traffic up to new hosts.
type SlowStart struct {
	Window           time.Duration
	Aggression       float64
	MinWeightPercent uint32
}

// UpstreamValidation verifies the upstream's certificate.
type UpstreamValidation struct {
	CAName string // the CA Secret's name, part of the cluster name
	// CANamespace is the CA Secret's namespace, part of a remote JWKS
	// cluster's name.
	CANamespace  string
	CACert       []byte
	SubjectNames []string
}

// Service is a Kubernetes Service port a cluster points at.
type Service struct {
	Namespace, Name string
	Port            corev1.ServicePort
	HealthPort      corev1.ServicePort
	Protocol        string
	ExternalName    string
	CircuitBreakers CircuitBreakers
	// LocalityWeight is the endpoints' locality weight; 0 means 1. Gateway
	// API backends carry their backendRef weight here, as in Contour.
	LocalityWeight uint32
}

// CircuitBreakers are a Service's circuit-breaker thresholds; 0 is unset.
type CircuitBreakers struct {
	MaxConnections, MaxPendingRequests, MaxRequests, MaxRetries, PerHostMaxConnections uint32
}
