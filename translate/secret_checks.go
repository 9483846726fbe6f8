package translate

import (
	"reflect"
	"runtime"
	"sort"
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

func (c *cache) checkSecret(s *corev1.Secret, name types.NamespacedName, validate func(*corev1.Secret) error) error {
	r := c.secretChecks.result(secretCheck{name, reflect.ValueOf(validate).Pointer()})
	r.once.Do(func() { r.err = validate(s) })
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

// checkServingSecretsAhead starts checking every kubernetes.io/tls Secret
// as a serving certificate on all CPUs but one. Call stopCheckingAhead once
// the DAG is built: what is left unchecked then is not needed.
func (c *cache) checkServingSecretsAhead() {
	n := runtime.GOMAXPROCS(0) - 1
	if n < 1 {
		return
	}
	var names []types.NamespacedName
	for name, s := range c.secrets {
		if s.Type == corev1.SecretTypeTLS {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool { return names[i].String() < names[j].String() })
	var next atomic.Int64
	for range n {
		c.secretChecks.workers.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(names)) && !c.secretChecks.stop.Load(); i = next.Add(1) - 1 {
				_ = c.checkSecret(c.secrets[names[i]], names[i], validTLSSecret)
			}
		})
	}
}

// stopCheckingAhead ends the checks started by checkServingSecretsAhead.
func (c *cache) stopCheckingAhead() {
	c.secretChecks.stop.Store(true)
	c.secretChecks.workers.Wait()
}
