package protojson

// The fast JSON encoder's lists: a resource's one huge list (the HTTPS
// listener's filter chains, the route table's virtual hosts) is printed in
// pieces on every CPU and, for JSONStream, passed on piece by piece as the
// pieces are printed (SegmentPasser).

import (
	"errors"
	"hash/crc32"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/render/internal/presence"
)

// SegmentPasser passes on, in order, the segments of one resource printed
// so far, and remembers how many bytes it passed and their checksum.
type SegmentPasser struct {
	// Pass passes a segment on and reports whether it took its buffer;
	// otherwise the buffer can be printed into again.
	Pass   func(segment []byte) (taken bool)
	passed int
	sum    uint32
}

func (p *SegmentPasser) add(segment []byte) (taken bool) {
	p.passed += len(segment)
	p.sum = crc32.Update(p.sum, castagnoli(), segment)
	return p.Pass(segment)
}

// castagnoli is made on first use: making it computes the SSE 4.2
// tables, 0.2-0.3 ms that every run (`contourc version` too) paid at
// start when it was a package variable.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// rest is the part of a resource's JSON, printed whole, that comes after
// what p passed on already. It is for a resource left to protojson after
// some of its pieces were passed on: the fast encoder prints what protojson
// prints, so the bytes passed are the start of protojson's, which the
// checksum confirms.
func (p *SegmentPasser) rest(whole []byte) ([]byte, error) {
	if len(whole) < p.passed || crc32.Checksum(whole[:p.passed], castagnoli()) != p.sum {
		return nil, errors.New("render: the fast JSON encoder and protojson disagree")
	}
	return whole[p.passed:], nil
}

// messageList prints the list of messages items, field i of a message
// whose plan is p, read from the struct: protoreflect's List makes a
// message value for each element through reflect.
func (e *Encoder) messageList(dst []byte, p *presence.Plan, i int, items []unsafe.Pointer, depth int) ([]byte, error) {
	tab := p.Fields[i].Message
	print := func(e *Encoder, dst []byte, k int) ([]byte, error) {
		m := presence.MessageAt(tab, items[k])
		return e.planned(dst, p.Sub(i, m), m, depth+1)
	}
	return e.listOf(dst, len(items), true, print, depth)
}

// MaxPiece is the most elements of a long list printed as one piece.
const MaxPiece = 128

// MinSplitList is the length from which a list of messages is printed in
// pieces on every CPU: even at 100 virtual hosts the HTTPS listener is
// half of the output, and one CPU printing it alone left the other idle.
const MinSplitList = 32

func (e *Encoder) list(dst []byte, l protoreflect.List, fd protoreflect.FieldDescriptor, depth int) ([]byte, error) {
	print := func(e *Encoder, dst []byte, k int) ([]byte, error) { return e.singular(dst, l.Get(k), fd, depth+1) }
	return e.listOf(dst, l.Len(), fd.Message() != nil, print, depth)
}

// stringList prints a list of strings read from the struct: protoreflect's
// List converts each element through reflect.
func (e *Encoder) stringList(dst []byte, items []string, depth int) ([]byte, error) {
	print := func(_ *Encoder, dst []byte, k int) ([]byte, error) { return appendJSONString(dst, items[k]) }
	return e.listOf(dst, len(items), false, print, depth)
}

// elementPrinter appends element k of a list with e.
type elementPrinter func(e *Encoder, dst []byte, k int) ([]byte, error)

// listOf prints the list of n elements at depth that print prints; a long
// list of messages is printed in pieces on every CPU.
func (e *Encoder) listOf(dst []byte, n int, messages bool, print elementPrinter, depth int) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	if n >= MinSplitList && messages {
		dst, err = e.listInPieces(dst, n, print, depth)
	} else {
		dst, err = e.elements(dst, print, depth, 0, n)
	}
	return e.end(dst, depth, ']', n == 0), err
}

// elements appends the elements from..to-1 of the array at depth.
func (e *Encoder) elements(dst []byte, print elementPrinter, depth, from, to int) ([]byte, error) {
	for i := from; i < to; i++ {
		dst = e.member(dst, depth, i == 0)
		var err error
		if dst, err = print(e, dst, i); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// listInPieces prints a long list's n elements in pieces, on every CPU,
// and appends the pieces in order.
func (e *Encoder) listInPieces(dst []byte, n int, print elementPrinter, depth int) ([]byte, error) {
	// Pieces enough to keep every CPU busy to the end, but not so small
	// that scheduling them costs more than printing them, nor so big that
	// each is a buffer of megabytes: at 20,000 HTTPProxies pieces of 1,250
	// filter chains were grown to 8-16 MB and held while they waited their
	// turn, and the collector ran three times while printing. Pieces of at
	// most MaxPiece: twice, and 10-17% less time (alternating runs).
	perPiece := min(MaxPiece, max(16, n/(8*runtime.GOMAXPROCS(0))))
	pieces := make([][]byte, (n+perPiece-1)/perPiece)
	errs := make([]error, len(pieces))
	passing := e.Segments != nil && depth == 1
	dstTaken := false
	if passing {
		// The resource's own list: what was printed before it, then
		// each piece as soon as those before it are printed, are passed
		// on; printing goes on in dst's buffer when it was not taken.
		dstTaken = e.Segments.add(dst)
	}
	var passed piecesPassed
	// Each piece starts with room for the size of the last one printed:
	// pieces are alike, and growing a buffer by doubling copies it.
	var lastSize atomic.Int64
	par.Workers(len(pieces), func() func(int) {
		pe := e.ForWorker()
		return func(k int) {
			from := k * perPiece
			hint := lastSize.Load()
			pieces[k], errs[k] = pe.elements(pieceBuffer(int(hint+hint/8)), print, depth, from, min(from+perPiece, n))
			lastSize.Store(int64(len(pieces[k])))
			if passing {
				passed.printed(k, pieces, errs, e.Segments)
			}
		}
	})
	size := 0
	for k, piece := range pieces {
		if errs[k] != nil {
			return dst, errs[k]
		}
		size += len(piece)
	}
	if passing && !dstTaken {
		return dst[:0], nil
	}
	if passing {
		return make([]byte, 0, 4096), nil
	}
	// A new buffer of the final size, and room for the fields after the
	// list, which would otherwise copy it all again: slices.Grow would zero
	// the room before the pieces overwrite it, tens of megabytes for a big
	// listener.
	out := append(make([]byte, 0, len(dst)+size+size/16+4096), dst...)
	for _, piece := range pieces {
		out = append(out, piece...)
		recyclePiece(piece)
	}
	return out, nil
}

// pieceBuffers holds the buffers of pieces passed on and not taken (see
// inOrder), for the next pieces: at 5,000 HTTPProxies fresh buffers were
// 85 MB of allocation, a sixth of a run's.
var pieceBuffers sync.Pool // *[]byte

// pieceBuffer is an empty buffer with room for size bytes.
func pieceBuffer(size int) []byte {
	if b, ok := pieceBuffers.Get().(*[]byte); ok && cap(*b) >= size {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

func recyclePiece(b []byte) {
	if cap(b) > 0 {
		b = b[:0]
		pieceBuffers.Put(&b)
	}
}

// piecesPassed passes a list's pieces on in order as they are printed, in
// whatever order that is, up to the first that failed.
type piecesPassed struct {
	mu   sync.Mutex
	next int // the piece to pass on next
	done []bool
}

// printed records that piece k is printed (or failed), and passes on what
// is then ready; a passed piece is dropped from pieces, its buffer
// recycled.
func (pp *piecesPassed) printed(k int, pieces [][]byte, errs []error, to *SegmentPasser) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.done == nil {
		pp.done = make([]bool, len(pieces))
	}
	pp.done[k] = true
	for pp.next < len(pieces) && pp.done[pp.next] && errs[pp.next] == nil {
		if !to.add(pieces[pp.next]) {
			recyclePiece(pieces[pp.next])
		}
		pieces[pp.next] = nil
		pp.next++
	}
}
