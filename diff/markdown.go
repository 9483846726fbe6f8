package diff

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as a pull-request comment: a heading, the
// validity changes in bold (they are what a review must not miss), a
// summary table, and each section folded in a <details> block holding a
// diff-highlighted code block. GitHub highlights "!" lines, not "~" ones,
// so changed lines are marked "!" here.
func WriteMarkdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("### contourc diff\n\n")
	if r.Empty() {
		bw.WriteString("No change to the Envoy configuration or to the status of any object.\n")
		return bw.Flush()
	}
	writeMarkdownBody(bw, r)
	return bw.Flush()
}

// writeMarkdownBody writes a report that changed something: its status
// line, summary table and folded sections.
func writeMarkdownBody(bw *bufio.Writer, r *Report) {
	s := Summarize(r)
	if st := s.statusLine(); st != "" {
		fmt.Fprintf(bw, "**%s**\n\n", st)
	}
	if rows := s.rows(); len(rows) > 0 {
		bw.WriteString("| | Added | Removed | Changed |\n|---|--:|--:|--:|\n")
		for _, row := range rows {
			fmt.Fprintf(bw, "| %s | %d | %d | %d |\n", capitalize(row.label), row.counts.Added, row.counts.Removed, row.counts.Changed)
		}
		bw.WriteString("\n")
	}
	for _, sec := range layout(r) {
		var body strings.Builder
		for _, l := range sec.lines {
			mark := l.mark
			if mark == markChange {
				mark = '!'
			}
			body.WriteString(string(mark) + strings.Repeat("    ", l.depth) + " " + l.text + "\n")
		}
		fence := codeFence(body.String())
		fmt.Fprintf(bw, "<details>\n<summary>%s (%d)</summary>\n\n%sdiff\n%s%s\n\n</details>\n\n",
			sec.title, countTop(sec.lines), fence, body.String(), fence)
	}
}

// codeFence is a run of backticks longer than any in body, so that a value
// holding backticks cannot end the code block early.
func codeFence(body string) string {
	longest, run := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// countTop counts the top-level entries of a section.
func countTop(lines []line) int {
	n := 0
	for _, l := range lines {
		if l.depth == 0 {
			n++
		}
	}
	return n
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
