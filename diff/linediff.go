package diff

// A line diff for the unified output: Myers' O(ND) algorithm in its
// linear-space form ("An O(ND) Difference Algorithm and Its Variations",
// 1986, section 4b). Rendered configurations run to hundreds of thousands
// of lines, so the quadratic-space version that keeps every step's
// frontier is out; this one keeps two frontiers and recurses on the halves
// either side of the middle snake.

// editOp is one step of an edit script.
type editOp int

const (
	opEqual editOp = iota
	opDelete
	opInsert
)

// edit is a run of lines: equal on both sides, deleted from a or inserted
// from b. A and B are the positions in a and b where it starts.
type edit struct {
	op   editOp
	a, b int
	n    int
}

// diffLines returns a shortest edit script turning a into b.
func diffLines(a, b []string) []edit {
	// Lines are compared as small integers.
	ids := map[string]int{}
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	m := &myers{a: intern(a), b: intern(b)}
	n := len(a) + len(b)
	m.vf = make([]int, 2*n+3)
	m.vb = make([]int, 2*n+3)
	m.compare(0, len(a), 0, len(b))
	return m.edits
}

type myers struct {
	a, b   []int
	vf, vb []int // frontiers, indexed by diagonal + offset
	edits  []edit
}

// emit appends a run, merging it with the previous one of the same kind.
func (m *myers) emit(op editOp, a, b, n int) {
	if n == 0 {
		return
	}
	if k := len(m.edits); k > 0 {
		if last := &m.edits[k-1]; last.op == op && last.a+advanceA(op, last.n) == a && last.b+advanceB(op, last.n) == b {
			last.n += n
			return
		}
	}
	m.edits = append(m.edits, edit{op, a, b, n})
}

func advanceA(op editOp, n int) int {
	if op == opInsert {
		return 0
	}
	return n
}

func advanceB(op editOp, n int) int {
	if op == opDelete {
		return 0
	}
	return n
}

// compare emits the edits turning a[alo:ahi] into b[blo:bhi].
func (m *myers) compare(alo, ahi, blo, bhi int) {
	// Common prefix and suffix need no search.
	pre := 0
	for alo+pre < ahi && blo+pre < bhi && m.a[alo+pre] == m.b[blo+pre] {
		pre++
	}
	m.emit(opEqual, alo, blo, pre)
	alo, blo = alo+pre, blo+pre
	suf := 0
	for alo < ahi-suf && blo < bhi-suf && m.a[ahi-suf-1] == m.b[bhi-suf-1] {
		suf++
	}
	ahi, bhi = ahi-suf, bhi-suf
	switch {
	case alo == ahi:
		m.emit(opInsert, alo, blo, bhi-blo)
	case blo == bhi:
		m.emit(opDelete, alo, blo, ahi-alo)
	default:
		x, y, u, v := m.middleSnake(alo, ahi, blo, bhi)
		m.compare(alo, x, blo, y)
		m.emit(opEqual, x, y, u-x)
		m.compare(u, ahi, v, bhi)
	}
	m.emit(opEqual, ahi, bhi, suf)
}

// middleSnake finds the middle snake of a shortest edit script of
// a[alo:ahi] → b[blo:bhi], both non-empty and differing at both ends: the
// diagonal run from (x, y) to (u, v) that a shortest path crosses halfway.
// Forward paths grow from the top left, backward paths from the bottom
// right; vf[k] is the furthest x on forward diagonal k = x-y, vb[k] the
// furthest distance from the end on backward diagonal k (in the reversed
// sequences), both relative to alo and blo.
func (m *myers) middleSnake(alo, ahi, blo, bhi int) (x, y, u, v int) {
	n, mm := ahi-alo, bhi-blo
	delta := n - mm
	odd := delta%2 != 0
	off := n + mm + 1 // keeps indices non-negative
	vf, vb := m.vf, m.vb
	vf[off+1], vb[off+1] = 0, 0
	for d := 0; d <= (n+mm+1)/2; d++ {
		if d > maxCost {
			bx, by := bestSplit(vf, off, d-1, n, mm)
			return alo + bx, blo + by, alo + bx, blo + by
		}
		for k := -d; k <= d; k += 2 {
			var px int
			if k == -d || (k != d && vf[off+k-1] < vf[off+k+1]) {
				px = vf[off+k+1] // down: an insertion
			} else {
				px = vf[off+k-1] + 1 // right: a deletion
			}
			py := px - k
			sx, sy := px, py
			for px < n && py < mm && m.a[alo+px] == m.b[blo+py] {
				px, py = px+1, py+1
			}
			vf[off+k] = px
			// Backward diagonal delta-k has done d-1 steps.
			if odd && -(d-1) <= delta-k && delta-k <= d-1 && px+vb[off+delta-k] >= n {
				return alo + sx, blo + sy, alo + px, blo + py
			}
		}
		for k := -d; k <= d; k += 2 {
			var px int
			if k == -d || (k != d && vb[off+k-1] < vb[off+k+1]) {
				px = vb[off+k+1]
			} else {
				px = vb[off+k-1] + 1
			}
			py := px - k
			sx, sy := px, py
			for px < n && py < mm && m.a[ahi-px-1] == m.b[bhi-py-1] {
				px, py = px+1, py+1
			}
			vb[off+k] = px
			// Forward diagonal delta-k has done d steps.
			if !odd && -d <= delta-k && delta-k <= d && px+vf[off+delta-k] >= n {
				return ahi - px, bhi - py, ahi - sx, bhi - sy
			}
		}
	}
	panic("diff: no middle snake") // unreachable: a path of length n+m exists
}

// maxCost bounds the steps middleSnake searches. Two unrelated
// configurations of 10,000 lines each would otherwise take 10^8 steps per
// level of recursion; past the bound, the script is still correct but may
// be longer than the shortest.
const maxCost = 1024

// bestSplit is the furthest point a forward path reached after d steps,
// used as the split when the search is too expensive: it lies strictly
// inside the edit graph, so both halves are smaller problems.
func bestSplit(vf []int, off, d, n, mm int) (int, int) {
	bx, by := 0, 0
	for k := -d; k <= d; k += 2 {
		x := min(vf[off+k], n)
		y := x - k
		if y < 0 || y > mm {
			continue
		}
		if x+y > bx+by && x+y < n+mm {
			bx, by = x, y
		}
	}
	if bx+by == 0 {
		bx = 1 // deleting the first line is always a way forward
	}
	return bx, by
}
