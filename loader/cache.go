package loader

// Keeping decoded documents between loads, for contourc serve: an edit
// touches one document of one file, and decoding the thousands of others
// again is most of a reload's cost.

import (
	"strconv"
	"sync"
)

// Cache remembers what each YAML document and JSON file decoded to, keyed
// by its file name, position and exact text, so that a Load given the
// cache decodes only text it has not seen at that place. The objects it
// hands out again are the same pointers: callers must treat loaded objects
// as read-only (translate does). After each Load the cache holds only what
// that Load used, so it never grows beyond one set of inputs. One Load at a
// time may use a Cache.
type Cache struct {
	mu      sync.Mutex
	entries map[string]partResult
	used    map[string]partResult // what the current Load looked up or added
	hits    int
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{entries: map[string]partResult{}, used: map[string]partResult{}}
}

// Hits is how many documents the last Load took from the cache.
func (c *Cache) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

func cacheKey(name string, line, index int, text []byte) string {
	return name + "\x00" + strconv.Itoa(line) + "\x00" + strconv.Itoa(index) + "\x00" + string(text)
}

// decode returns what load gives for the text under key, from the cache
// when it has it. A nil Cache always loads.
func (c *Cache) decode(key func() string, load func() partResult) partResult {
	if c == nil {
		return load()
	}
	k := key()
	c.mu.Lock()
	p, ok := c.entries[k]
	if ok {
		c.used[k] = p
		c.hits++
	}
	c.mu.Unlock()
	if ok {
		return p
	}
	p = load()
	c.mu.Lock()
	c.used[k] = p
	c.mu.Unlock()
	return p
}

// begin starts a Load; end keeps what it used and drops the rest.
func (c *Cache) begin() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.used, c.hits = map[string]partResult{}, 0
	c.mu.Unlock()
}

func (c *Cache) end() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.entries, c.used = c.used, map[string]partResult{}
	c.mu.Unlock()
}
