package loader

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAliasBombRefusedQuickly feeds a "billion laughs" document (10^9
// strings once expanded) and wants a prompt refusal.
func TestAliasBombRefusedQuickly(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n")
	b.WriteString(`  l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 9; i++ {
		ref := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(ref+",", 10), ","))
	}
	start := time.Now()
	errs := loadErrors(t, Options{Stdin: strings.NewReader(b.String())}, "-")
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("refusing the alias bomb took %v", d)
	}
	if !strings.Contains(errs[0].Msg, "aliases expand to more than") {
		t.Errorf("error = %v", errs[0])
	}
}

// TestSelfReferentialAlias checks that an alias to its own anchor is an
// error, not an endless loop.
func TestSelfReferentialAlias(t *testing.T) {
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loop\ndata: &a\n  x: *a\n"
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
		if err == nil {
			t.Errorf("loaded %d objects from a recursive document", len(res.Objects))
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Load did not return on a recursive alias")
	}
}

// TestFileSizeLimit checks that input over the limit is refused.
func TestFileSizeLimit(t *testing.T) {
	text := strings.Repeat("# padding\n", 100)
	errs := loadErrors(t, Options{Stdin: strings.NewReader(text), MaxFileSize: 512}, "-")
	if !strings.Contains(errs[0].Msg, "larger than the 512 byte limit") {
		t.Errorf("error = %v", errs[0])
	}
}

// TestFileSizeLimitOnFiles checks the limit on files, which are read into a
// buffer of their size: one byte over is refused, the limit itself is not.
func TestFileSizeLimitOnFiles(t *testing.T) {
	dir := t.TempDir()
	at, over := filepath.Join(dir, "at.yaml"), filepath.Join(dir, "over.yaml")
	padding := strings.Repeat("# padding\n", 51) // 510 bytes
	if err := os.WriteFile(at, []byte(padding+"#\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte(padding+"##\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{at}, Options{MaxFileSize: 512}); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
	errs := loadErrors(t, Options{MaxFileSize: 512}, over)
	if !strings.Contains(errs[0].Msg, "larger than the 512 byte limit") {
		t.Errorf("error = %v", errs[0])
	}
}

// TestDepthLimit checks deeply nested documents, YAML and JSON, are
// refused without exhausting the stack.
func TestDepthLimit(t *testing.T) {
	deep := 100000
	for name, text := range map[string]string{
		"yaml flow": "a: " + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "\n",
		"yaml block": func() string {
			var b strings.Builder
			for i := 0; i < 2000; i++ {
				fmt.Fprintf(&b, "%sk:\n", strings.Repeat(" ", i))
			}
			return b.String()
		}(),
		"json": strings.Repeat(`{"a":`, deep) + "1" + strings.Repeat("}", deep),
	} {
		t.Run(name, func(t *testing.T) {
			loadErrors(t, Options{Stdin: strings.NewReader(text)}, "-")
		})
	}
}

// FuzzLoad checks that no input makes Load panic or hang (a watchdog
// fails the input that takes too long, so the fuzzer keeps it).
func FuzzLoad(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  ports:\n  - port: 80\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":"YQ=="}}]}`))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("---\n--- |\n  text\n...\n%YAML 1.2\n---\n"))
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec: {rules: [{matches: [{}]}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = Load([]string{"-"}, Options{Stdin: bytes.NewReader(data)})
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("Load hangs on %q", data)
		}
	})
}
