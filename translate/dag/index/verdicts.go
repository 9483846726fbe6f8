package index

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// verdicts remembers Secret validations by content. A translation
// without a Memo keeps its own for its length: many Secrets often hold the
// same certificate (a wildcard copied into every namespace), and parsing
// it again is what checking costs; hashing it is a tenth of that.
type verdicts struct {
	mu sync.Mutex
	// current are the verdicts of the translation under way, previous
	// those of the one before, which it may take over.
	current, previous map[verdictKey]error
	// byObject are the same verdicts by Secret object, which needs no
	// hash: the loader's cache hands an unchanged Secret out as the same
	// object at every reload, and hashing 5,000 certificates was a tenth
	// of one.
	currentByObject, previousByObject map[objectVerdictKey]error
}

// objectVerdictKey names one validator's verdict on one Secret object.
type objectVerdictKey struct {
	validator uintptr
	secret    *corev1.Secret
}

// verdictKey names one validator's verdict on one Secret content.
type verdictKey struct {
	validator uintptr
	content   [sha256.Size]byte
}

// begin starts a translation: the verdicts of the one before the last are
// dropped. When the translation's objects are the last one's, patched
// (patched), the verdicts on Secret objects are kept but for those the
// patch removed: the others are the very same objects, and a translation
// that replays its HTTPProxies looks none of them up, which left the next
// one nothing to take over.
func (v *verdicts) begin(patched *indexedObjects) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.previous, v.current = v.current, map[verdictKey]error{}
	if patched == nil || v.currentByObject == nil {
		v.previousByObject, v.currentByObject = v.currentByObject, map[objectVerdictKey]error{}
		return
	}
	gone := map[*corev1.Secret]bool{}
	for _, o := range patched.removed {
		if s, ok := o.Obj.(*corev1.Secret); ok {
			gone[s] = true
		}
	}
	if len(gone) > 0 {
		forget := func(k objectVerdictKey, _ error) bool { return gone[k.secret] }
		maps.DeleteFunc(v.currentByObject, forget)
		maps.DeleteFunc(v.previousByObject, forget)
	}
}

// rememberSome says whether there are verdicts of an earlier translation.
func (v *verdicts) rememberSome() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.previousByObject) > 0 || len(v.currentByObject) > 0
}

// verdict is validate(s), remembered by s's content. The validators read
// only a Secret's type and data, which is what the content hash covers.
func (v *verdicts) verdict(s *corev1.Secret, validator uintptr, validate func(*corev1.Secret) error) error {
	objectKey := objectVerdictKey{validator, s}
	v.mu.Lock()
	err, ok := rememberedVerdict(v.currentByObject, v.previousByObject, objectKey)
	v.mu.Unlock()
	if !ok {
		key := verdictKey{validator, secretContent(s)}
		v.mu.Lock()
		err, ok = rememberedVerdict(v.current, v.previous, key)
		v.mu.Unlock()
		if !ok {
			err = validate(s)
		}
		v.mu.Lock()
		keepVerdict(v.current, key, err)
		v.mu.Unlock()
	}
	v.mu.Lock()
	keepVerdict(v.currentByObject, objectKey, err)
	v.mu.Unlock()
	return err
}

// rememberedVerdict is the verdict under k in current or, failing that, previous.
func rememberedVerdict[K comparable](current, previous map[K]error, k K) (error, bool) {
	if err, ok := current[k]; ok {
		return err, true
	}
	err, ok := previous[k]
	return err, ok
}

// keepVerdict records a verdict for the translation under way; before begin
// there is none to record it for.
func keepVerdict[K comparable](current map[K]error, k K, err error) {
	if current != nil {
		current[k] = err
	}
}

// secretContent hashes a Secret's type and data, keys in order, each
// string with its length so that no two contents hash alike by shifting
// bytes from one to the next.
func secretContent(s *corev1.Secret) [sha256.Size]byte {
	h := sha256.New()
	field := func(b []byte) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))])
		h.Write(b)
	}
	field([]byte(s.Type))
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		field([]byte(k))
		field(s.Data[k])
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
