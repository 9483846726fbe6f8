package diff

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// unifiedContext is the number of unchanged lines shown around a change,
// as in diff -u.
const unifiedContext = 3

// lineOp is one line of an edit script: kept, deleted from a (a index) or
// inserted from b (b index).
type lineOp struct {
	op   editOp
	a, b int
}

// WriteUnified writes a unified diff (diff -u) of two texts, labelled
// oldName and newName; nothing when they are equal. It reports whether the
// texts differ.
func WriteUnified(w io.Writer, oldName, newName, oldText, newText string) (bool, error) {
	a, aEOL := splitLines(oldText)
	b, bEOL := splitLines(newText)
	if aEOL != bEOL && len(a) > 0 && len(b) > 0 {
		// Only the final newline differs: make the last lines differ so
		// the change shows.
		a[len(a)-1] += noNewline(aEOL)
		b[len(b)-1] += noNewline(bEOL)
	}
	var ops []lineOp
	for _, e := range diffLines(a, b) {
		for i := 0; i < e.n; i++ {
			switch e.op {
			case opEqual:
				ops = append(ops, lineOp{opEqual, e.a + i, e.b + i})
			case opDelete:
				ops = append(ops, lineOp{opDelete, e.a + i, e.b})
			case opInsert:
				ops = append(ops, lineOp{opInsert, e.a, e.b + i})
			}
		}
	}
	ops = deletionsFirst(ops)
	hunks := groupHunks(ops)
	if len(hunks) == 0 {
		return false, nil
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks {
		writeHunk(bw, ops[h[0]:h[1]], a, b)
	}
	return true, bw.Flush()
}

// deletionsFirst puts, in each run of changed lines, the deleted lines
// before the inserted ones, as diff -u prints them (the shortest script may
// interleave them), and renumbers the positions to match.
func deletionsFirst(ops []lineOp) []lineOp {
	out := make([]lineOp, 0, len(ops))
	for i := 0; i < len(ops); {
		if ops[i].op == opEqual {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].op != opEqual {
			j++
		}
		for _, want := range []editOp{opDelete, opInsert} {
			for _, o := range ops[i:j] {
				if o.op == want {
					out = append(out, o)
				}
			}
		}
		i = j
	}
	a, b := 0, 0
	for i := range out {
		out[i].a, out[i].b = a, b
		if out[i].op != opInsert {
			a++
		}
		if out[i].op != opDelete {
			b++
		}
	}
	return out
}

// splitLines splits text into lines and says whether it ended with a
// newline.
func splitLines(text string) ([]string, bool) {
	if text == "" {
		return nil, true
	}
	eol := strings.HasSuffix(text, "\n")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), eol
}

func noNewline(eol bool) string {
	if eol {
		return ""
	}
	return "\n\\ No newline at end of file"
}

// groupHunks returns the [start, end) ranges of ops to print: each change
// with unifiedContext kept lines around it, changes closer than twice that
// sharing one hunk.
func groupHunks(ops []lineOp) [][2]int {
	var hunks [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].op == opEqual {
			continue
		}
		start := max(0, i-unifiedContext)
		end := i
		// Extend over changes and short runs of kept lines.
		for j := i; j < len(ops); j++ {
			if ops[j].op != opEqual {
				end = j + 1
				continue
			}
			if j-end >= 2*unifiedContext {
				break
			}
		}
		end = min(len(ops), end+unifiedContext)
		if n := len(hunks); n > 0 && hunks[n-1][1] >= start {
			hunks[n-1][1] = end
		} else {
			hunks = append(hunks, [2]int{start, end})
		}
		i = end - 1
	}
	return hunks
}

func writeHunk(bw *bufio.Writer, ops []lineOp, a, b []string) {
	aStart, bStart := ops[0].a, ops[0].b
	aLen, bLen := 0, 0
	for _, o := range ops {
		if o.op != opInsert {
			aLen++
		}
		if o.op != opDelete {
			bLen++
		}
	}
	fmt.Fprintf(bw, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, o := range ops {
		switch o.op {
		case opEqual:
			bw.WriteString(" " + a[o.a] + "\n")
		case opDelete:
			bw.WriteString("-" + a[o.a] + "\n")
		case opInsert:
			bw.WriteString("+" + b[o.b] + "\n")
		}
	}
}

// hunkRange is "start,len" as diff -u writes it: 1-based, ",1" left out,
// and an empty range starting at the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	default:
		return fmt.Sprintf("%d,%d", start+1, n)
	}
}
