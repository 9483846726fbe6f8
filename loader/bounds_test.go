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
	errs := loadErrors(t, Options{Stdin: strings.NewReader(text), MaxInputSize: 512}, "-")
	if !strings.Contains(errs[0].Msg, "larger than the 512 input limit (--max-input-size)") {
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
	if _, err := Load([]string{at}, Options{MaxInputSize: 512}); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
	errs := loadErrors(t, Options{MaxInputSize: 512}, over)
	if !strings.Contains(errs[0].Msg, "larger than the 512 input limit (--max-input-size)") {
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

// The input limit is on all input together, files and stdin: the file
// that takes the total over it is named, before anything is read.
func TestInputSizeLimitIsTotal(t *testing.T) {
	dir := t.TempDir()
	padding := strings.Repeat("# padding\n", 30) // 300 bytes
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte(padding), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load([]string{a}, Options{MaxInputSize: 512}); err != nil {
		t.Errorf("one file under the limit: %v", err)
	}
	_, err := Load([]string{dir}, Options{MaxInputSize: 512})
	if want := b + ": with the files before it, larger than the 512 input limit (--max-input-size)"; err == nil || err.Error() != want {
		t.Errorf("two files over the limit together: %v, want %s", err, want)
	}
	_, err = Load([]string{a, "-"}, Options{MaxInputSize: 512, Stdin: strings.NewReader(padding)})
	if want := "<stdin>: with the other input, larger than the 512 input limit (--max-input-size)"; err == nil || err.Error() != want {
		t.Errorf("a file and stdin over the limit together: %v, want %s", err, want)
	}
}

// The default limit is 1Gi: 65 MiB on stdin, over the 64 MiB a file was
// limited to, loads.
func TestInputSizeDefaultAllowsLargeInput(t *testing.T) {
	if testing.Short() {
		t.Skip("65 MiB of input")
	}
	line := "# a comment line of padding, as long as many a manifest line is\n"
	text := strings.Repeat(line, (65<<20)/len(line)+1)
	if _, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)}); err != nil {
		t.Errorf("65 MiB on stdin: %v", err)
	}
}

// An endless stream of NUL bytes (/dev/zero) is refused at once, not
// read up to the limit.
func TestInputOfZeros(t *testing.T) {
	zeros := &countingZeros{}
	_, err := Load([]string{"-"}, Options{Stdin: zeros})
	if err == nil || !strings.Contains(err.Error(), "not a text file: NUL byte found") {
		t.Errorf("error %v", err)
	}
	if zeros.read > 1<<20 {
		t.Errorf("read %d bytes of zeros before refusing them", zeros.read)
	}
}

type countingZeros struct{ read int }

func (z *countingZeros) Read(p []byte) (int, error) {
	clear(p)
	z.read += len(p)
	return len(p), nil
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1Gi": 1 << 30, "512Mi": 512 << 20, "100M": 100_000_000, "4096": 4096, "1.5Gi": 3 << 29} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1Gi", "1m", "lots", "1GB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
	if got := FormatSize(1 << 30); got != "1Gi" {
		t.Errorf("FormatSize(1Gi) = %q", got)
	}
}
