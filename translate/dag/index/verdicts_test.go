package index

import (
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/contourc/contourc/loader"
)

// TestMemoVerdicts checks what a Memo remembers: a verdict by validator
// and content, kept for the next translation and dropped after one that
// did not use it.
func TestMemoVerdicts(t *testing.T) {
	calls := 0
	invalid := errors.New("invalid")
	validate := func(s *corev1.Secret) error {
		calls++
		if string(s.Data["k"]) == "bad" {
			return invalid
		}
		return nil
	}
	other := func(*corev1.Secret) error { calls++; return nil }
	secret := func(v string) *corev1.Secret {
		return &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte(v)}}
	}
	ptr := func(f func(*corev1.Secret) error) uintptr { return reflect.ValueOf(f).Pointer() }
	m := &Memo{}
	check := func(what string, s *corev1.Secret, f func(*corev1.Secret) error, wantErr error, wantCalls int) {
		t.Helper()
		before := calls
		if err := m.verdicts.verdict(s, ptr(f), f); err != wantErr {
			t.Errorf("%s: verdict %v, want %v", what, err, wantErr)
		}
		if calls-before != wantCalls {
			t.Errorf("%s: validated %d time(s), want %d", what, calls-before, wantCalls)
		}
	}
	m.begin()
	check("first sight", secret("good"), validate, nil, 1)
	check("same content, another object", secret("good"), validate, nil, 0)
	check("invalid content", secret("bad"), validate, invalid, 1)
	check("same content, another validator", secret("good"), other, nil, 1)
	check("the content's type changes it", &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{"k": []byte("good")}}, validate, nil, 1)
	m.begin()
	check("kept for the next translation", secret("bad"), validate, invalid, 0)
	m.begin()
	check("used by the last one, kept", secret("bad"), validate, invalid, 0)
	check("unused by the last one, dropped", secret("good"), validate, nil, 1)

	// The same object again is answered without hashing its content:
	// objects are never changed once loaded, so a change made in place
	// here (which no caller makes) shows which way the answer came.
	same := secret("another")
	m.begin()
	check("an object, first seen", same, validate, nil, 1)
	same.Data["k"] = []byte("bad")
	check("the same object", same, validate, nil, 0)
	m.begin()
	check("the same object, next translation", same, validate, nil, 0)

	// A translation without a Memo keeps verdicts of its own.
	var own verdicts
	before := calls
	own.begin(nil)
	_ = own.verdict(secret("good"), ptr(validate), validate)
	_ = own.verdict(secret("good"), ptr(validate), validate)
	if calls-before != 1 {
		t.Errorf("a translation's own verdicts: validated %d times, want 1", calls-before)
	}
}

// TestSecretContent checks that the content hash tells apart what the
// validators could tell apart, however the bytes fall between keys.
func TestSecretContent(t *testing.T) {
	contents := []*corev1.Secret{
		{Type: corev1.SecretTypeOpaque},
		{Type: corev1.SecretTypeTLS},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": nil}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("bc")}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"ab": []byte("c")}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("b"), "c": nil}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("b"), "c": []byte("d")}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("d"), "c": []byte("b")}},
	}
	seen := map[[32]byte]int{}
	for i, s := range contents {
		sum := secretContent(s)
		if j, ok := seen[sum]; ok {
			t.Errorf("contents %d and %d hash alike", j, i)
		}
		seen[sum] = i
	}
	a := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"x": []byte("1"), "y": []byte("2"), "z": []byte("3")}}
	for range 20 {
		b := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"z": []byte("3"), "y": []byte("2"), "x": []byte("1")}}
		if secretContent(a) != secretContent(b) {
			t.Fatal("the same content hashes differently")
		}
	}
}

// TestVerdictsKeptAcrossPatches: while the objects are the last ones
// patched, the verdicts on Secret objects still there are kept, though no
// translation looks them up (its HTTPProxies replayed), and those on
// removed ones are dropped; objects indexed anew drop verdicts unused by
// the last translation, as before.
func TestVerdictsKeptAcrossPatches(t *testing.T) {
	calls := 0
	validate := func(*corev1.Secret) error { calls++; return nil }
	validator := reflect.ValueOf(validate).Pointer()
	kept := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte("kept")}}
	removed := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte("removed")}}
	var v verdicts
	v.begin(nil)
	_ = v.verdict(kept, validator, validate)
	_ = v.verdict(removed, validator, validate)
	patch := &indexedObjects{patched: true, removed: []loader.Object{{Kind: "Secret", Obj: removed}}}
	v.begin(patch)
	v.begin(patch)
	if !v.rememberSome() {
		t.Fatal("no verdicts remembered after two patched translations")
	}
	for _, byObject := range []map[objectVerdictKey]error{v.currentByObject, v.previousByObject} {
		if _, ok := byObject[objectVerdictKey{validator, removed}]; ok {
			t.Error("the verdict on a removed Secret is kept")
		}
	}
	calls = 0
	_ = v.verdict(kept, validator, validate)
	if calls != 0 {
		t.Errorf("a kept Secret was validated again %d time(s) after two patched translations", calls)
	}
	v.begin(nil)
	v.begin(nil)
	_ = v.verdict(kept, validator, validate)
	if calls != 1 {
		t.Errorf("objects indexed anew twice: validated %d time(s), want 1", calls)
	}
}
