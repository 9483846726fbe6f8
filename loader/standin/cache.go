package standin

import (
	"fmt"
	"sync"
)

// Cache keeps the certificates one Apply made for the next, in memory
// only: serve reloads its input again and again, and deriving an RSA key
// takes tens of milliseconds. After each Apply it holds only what that
// Apply used, so it never grows beyond one input's stand-ins (two at once,
// a reload left behind by its deadline and the next, are safe: at worst one
// makes again what the other dropped). A nil Cache keeps nothing.
type Cache struct {
	mu         sync.Mutex
	last, next map[string]pemPair
}

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{last: map[string]pemPair{}, next: map[string]pemPair{}} }

// cert is makeCert(identity, req), from c when it made it last time.
func (c *Cache) cert(identity string, req certRequest) (pemPair, error) {
	if c == nil {
		return makeCert(identity, req)
	}
	key := identity + "\x00" + fmt.Sprintf("%#v", req)
	c.mu.Lock()
	p, ok := c.last[key]
	c.mu.Unlock()
	if !ok {
		var err error
		if p, err = makeCert(identity, req); err != nil {
			return pemPair{}, err
		}
	}
	c.mu.Lock()
	c.next[key] = p
	c.mu.Unlock()
	return p, nil
}

// ca is makeCA(namespace, crl), from c when it made it last time.
func (c *Cache) ca(namespace string, crl bool) (caPEM, crlPEM []byte, err error) {
	if c == nil {
		return makeCA(namespace, crl)
	}
	key := fmt.Sprintf("%s\x00%v", caIdentity(namespace), crl)
	c.mu.Lock()
	p, ok := c.last[key]
	c.mu.Unlock()
	if !ok {
		if p.cert, p.key, err = makeCA(namespace, crl); err != nil {
			return nil, nil, err
		}
	}
	c.mu.Lock()
	c.next[key] = p
	c.mu.Unlock()
	return p.cert, p.key, nil
}

// end makes what this Apply used what the next finds.
func (c *Cache) end() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.last, c.next = c.next, map[string]pemPair{}
	c.mu.Unlock()
}
