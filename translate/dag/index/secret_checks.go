package index

import (
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// secretChecks remembers the validation of each Secret: many objects may
// use the same certificate, and parsing it is the costly part. The serving
// certificates are checked ahead, on the CPUs the DAG build (one goroutine)
// leaves idle; the builder waits for a check already under way rather than
// repeating it.
type secretChecks struct {
	mu      sync.Mutex
	results map[secretCheck]*secretResult

	stop    atomic.Bool
	workers sync.WaitGroup
}

// secretCheck is one validation of one Secret.
type secretCheck struct {
	name      types.NamespacedName
	validator uintptr
}

type secretResult struct {
	once sync.Once
	err  error
}

func (c *Index) checkSecret(s *corev1.Secret, name types.NamespacedName, validate func(*corev1.Secret) error) error {
	validator := reflect.ValueOf(validate).Pointer()
	r := c.secretChecks.result(secretCheck{name, validator})
	r.once.Do(func() { r.err = c.verdicts.verdict(s, validator, validate) })
	return r.err
}

func (sc *secretChecks) result(key secretCheck) *secretResult {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	r, ok := sc.results[key]
	if !ok {
		if sc.results == nil {
			sc.results = map[secretCheck]*secretResult{}
		}
		r = &secretResult{}
		sc.results[key] = r
	}
	return r
}

// CheckServingSecretsAhead starts checking, on all CPUs but one, the
// Secrets that HTTPProxies, Ingresses and Gateways name as serving
// certificates. Call StopCheckingAhead once the DAG is built: what is left
// unchecked then is not needed. A Secret named some other way is checked
// when the DAG build gets to it, as before.
//
// After a translation with the same Memo it checks nothing: the verdicts
// are remembered, so it would only look them up (13 ms of CPU at 5,000
// HTTPProxies, listing them most of it, taken from the CPU that builds the
// DAG's resources), and the few Secrets a reload changes are checked when
// the DAG build gets to them.
func (c *Index) CheckServingSecretsAhead() {
	n := runtime.GOMAXPROCS(0) - 1
	if n < 1 || c.verdicts.rememberSome() {
		return
	}
	// Even listing them (7 ms at 5,000 HTTPProxies) is done off the
	// translation's path: the index is not written to once built.
	c.secretChecks.workers.Go(func() {
		names := c.servingSecretNames()
		var next atomic.Int64
		check := func() {
			for i := next.Add(1) - 1; i < int64(len(names)) && !c.secretChecks.stop.Load(); i = next.Add(1) - 1 {
				_ = c.checkSecret(c.Secrets[names[i]], names[i], ValidTLSSecret)
			}
		}
		for range n - 1 {
			c.secretChecks.workers.Go(check)
		}
		check()
	})
}

// servingSecretNames lists, in the order they are named, the Secrets in
// the input that are named as serving certificates: a virtual host's tls.SecretName, an
// Ingress's tls[].SecretName (both "name" or "namespace/name") and a Gateway
// listener's certificateRefs.
func (c *Index) servingSecretNames() []types.NamespacedName {
	// In the order they are first named, HTTPProxies and Ingresses by
	// namespace and name, then Gateways: sorting them all cost 10 ms at
	// 5,000 HTTPProxies, on the way to every translation.
	seen := make(map[types.NamespacedName]bool, len(c.HTTPProxies)+len(c.Ingresses))
	names := make([]types.NamespacedName, 0, len(c.HTTPProxies)+len(c.Ingresses))
	add := func(ns, ref string) {
		if before, after, found := strings.Cut(ref, "/"); found {
			ns, ref = before, after
		}
		name := types.NamespacedName{Namespace: ns, Name: ref}
		if s, ok := c.Secrets[name]; ok && s.Type == corev1.SecretTypeTLS && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, p := range c.HTTPProxies {
		if vh := p.Spec.VirtualHost; vh != nil && vh.TLS != nil && vh.TLS.SecretName != "" {
			add(p.Namespace, vh.TLS.SecretName)
		}
	}
	for _, ing := range c.Ingresses {
		for _, t := range ing.Spec.TLS {
			add(ing.Namespace, t.SecretName)
		}
	}
	byName := func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) }
	for _, key := range slices.SortedFunc(maps.Keys(c.Gateways), byName) {
		gw := c.Gateways[key]
		for _, l := range gw.Spec.Listeners {
			if l.TLS == nil {
				continue
			}
			for _, ref := range l.TLS.CertificateRefs {
				ns := gw.Namespace
				if ref.Namespace != nil {
					ns = string(*ref.Namespace)
				}
				add(ns, string(ref.Name))
			}
		}
	}
	return names
}

// StopCheckingAhead ends the checks started by CheckServingSecretsAhead.
func (c *Index) StopCheckingAhead() {
	c.secretChecks.stop.Store(true)
	c.secretChecks.workers.Wait()
}
