package diff

import (
	"bufio"
	"io"
	"strings"
)

// ANSI colours of the text output.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

var markColours = map[byte]string{markAdd: ansiGreen, markRemove: ansiRed, markChange: ansiYellow}

// WriteText writes the report for a terminal: a section per kind of
// change, lines marked + (added), - (removed) or ~ (changed), and a summary
// line. With colour, sections are bold and marked lines coloured. Nothing
// is written when nothing changed.
func WriteText(w io.Writer, r *Report, colour bool) error {
	if r.Empty() {
		return nil
	}
	bw := bufio.NewWriter(w)
	for i, s := range layout(r) {
		if i > 0 {
			bw.WriteByte('\n')
		}
		writeStyled(bw, s.title, ansiBold, colour)
		bw.WriteByte('\n')
		for _, l := range s.lines {
			text := strings.Repeat("    ", l.depth) + string(l.mark) + " " + l.text
			writeStyled(bw, text, markColours[l.mark], colour)
			bw.WriteByte('\n')
		}
	}
	bw.WriteString("\nSummary: " + Summarize(r).String() + "\n")
	return bw.Flush()
}

func writeStyled(bw *bufio.Writer, text, style string, colour bool) {
	if !colour || style == "" {
		bw.WriteString(text)
		return
	}
	bw.WriteString(style + text + ansiReset)
}
