package loader

// Keeping decoded documents between loads, for contourc serve: an edit
// touches one document of one file, and decoding the thousands of others
// again is most of a reload's cost.

import (
	"crypto/sha256"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/contourc/contourc/loader/walk"
)

// Cache remembers what each file gave, whole, by its exact text, and what
// each of its YAML documents (or a JSON file) decoded to, keyed by its
// position and exact text. A Load given the cache takes an unchanged file
// as it was, without splitting or looking up its documents, and decodes,
// in a changed file, only the text it has not seen at that place. The
// objects it hands out again are the same pointers: callers must treat
// loaded objects as read-only (translate does). After each Load the cache
// holds only what that Load used, so it never grows beyond one set of
// inputs. One Load at a time may use a Cache.
type Cache struct {
	mu    sync.Mutex
	files map[string]*cachedFile // what the last Load read, by file name
	used  map[string]*cachedFile // what the current Load reads
	hits  int
	// stampsTrusted counts the files taken as unchanged by their stamp
	// alone, for tests.
	stampsTrusted atomic.Int64
}

// cachedFile is what one file gave.
type cachedFile struct {
	sum   [sha256.Size]byte // of its bytes as read
	stamp fileStamp         // of those bytes, when known
	whole partResult        // all of it; valid once complete
	// complete says the file was read to the end, so that whole is
	// what it gives.
	complete bool
	docs     map[string]partResult // by docKey
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{files: map[string]*cachedFile{}, used: map[string]*cachedFile{}}
}

// Hits is how many documents the last Load took from the cache.
func (c *Cache) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// Objects is how many objects the file named path gave the last Load that
// read it, and whether that Load read it to the end: how serve tells a file
// that held manifests and is now empty (truncated, to be written again) from
// one that never held any.
func (c *Cache) Objects(path string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.files[path]
	if f == nil || !f.complete {
		return 0, false
	}
	return len(f.whole.objs), true
}

// documents is how many documents the cache holds.
func (c *Cache) documents() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, f := range c.files {
		n += len(f.docs)
	}
	return n
}

func docKey(line, index int, text []byte) string {
	return strconv.Itoa(line) + "\x00" + strconv.Itoa(index) + "\x00" + string(text)
}

// stamp is what stat says of the file at path, for a Load that keeps a
// cache: taken before the file is read.
func (c *Cache) stamp(path string) fileStamp {
	if c == nil {
		return fileStamp{}
	}
	return stampOf(path)
}

// unchanged returns what the file at path gave the last time, when its
// bytes are still the same. A file whose stamp (taken just before) vouches
// for the bytes read last time is not read at all: hashing every file at
// every reload was a sixth of a reload at 5,000 HTTPProxies. Otherwise it
// is hashed through a small buffer, without being held in memory. A file
// that cannot be read, or is over limit, is left to the caller to report.
func (c *Cache) unchanged(path string, stamp fileStamp, limit int64) (partResult, bool) {
	if c == nil {
		return partResult{}, false
	}
	c.mu.Lock()
	f := c.files[path]
	c.mu.Unlock()
	if f == nil || !f.complete {
		return partResult{}, false
	}
	if f.stamp.sameFile(stamp) && f.stamp.vouches() {
		c.stampsTrusted.Add(1)
		return c.lookup(path, f.sum, f.stamp)
	}
	file, err := walk.OpenInput(path, false)
	if err != nil {
		return partResult{}, false // loadFile reports it
	}
	defer file.Close()
	h := sha256.New()
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	if n, err := io.CopyBuffer(h, io.LimitReader(file, limit+1), *buf); err != nil || n > limit {
		return partResult{}, false
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return c.lookup(path, sum, stamp)
}

var hashBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// file returns what the file name gave the last time its bytes were data,
// and whether it has that. Otherwise the file's documents are looked up
// one by one (decode) and what it gives is recorded (keep). A nil Cache
// never has it.
func (c *Cache) file(name string, data []byte, stamp fileStamp) (partResult, bool) {
	if c == nil {
		return partResult{}, false
	}
	return c.lookup(name, sha256.Sum256(data), stamp)
}

// lookup is file for the bytes whose hash is sum, stamped stamp.
func (c *Cache) lookup(name string, sum [sha256.Size]byte, stamp fileStamp) (partResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.files[name]; f != nil && f.complete && f.sum == sum {
		if stamp.valid {
			f.stamp = stamp // newer, and so the sooner to vouch
		}
		c.used[name] = f
		c.hits += len(f.docs)
		return f.whole, true
	}
	c.used[name] = &cachedFile{sum: sum, stamp: stamp, docs: map[string]partResult{}}
	return partResult{}, false
}

// keep records what the file name, looked up by file, gave.
func (c *Cache) keep(name string, whole partResult) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.used[name]; f != nil {
		f.whole, f.complete = whole, true
	}
}

// decode returns what load gives for the document of file name under key,
// from the cache when the file had that document before. A nil Cache
// always loads.
func (c *Cache) decode(name string, key func() string, load func() partResult) partResult {
	if c == nil {
		return load()
	}
	k := key()
	c.mu.Lock()
	var p partResult
	ok := false
	if old := c.files[name]; old != nil {
		p, ok = old.docs[k]
	}
	if ok {
		c.used[name].docs[k] = p
		c.hits++
	}
	c.mu.Unlock()
	if ok {
		return p
	}
	p = load()
	c.mu.Lock()
	c.used[name].docs[k] = p
	c.mu.Unlock()
	return p
}

// begin starts a Load; end keeps what it used and drops the rest.
func (c *Cache) begin() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.used, c.hits = make(map[string]*cachedFile, len(c.files)), 0
	c.mu.Unlock()
}

func (c *Cache) end() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.files, c.used = c.used, map[string]*cachedFile{}
	c.mu.Unlock()
}
