package render

import "strings"

// isTableRow reports whether s looks like a Markdown table row: it starts
// with "|" (after indentation) and has another "|".
func isTableRow(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2
}

// splitRow splits "| a | b \| c |" into its trimmed cells.
func splitRow(s string) []string {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == '|':
			cur.WriteByte('|')
			i++
		case t[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(t[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// alignments reads the separator row ("|:--|--:|:-:|"); ok is false when
// the row is not one.
func alignments(cells []string) (al []byte, ok bool) {
	for _, c := range cells {
		c = strings.TrimSpace(c)
		if c == "" || strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return nil, false
		}
		a := byte('l')
		switch {
		case strings.HasPrefix(c, ":") && strings.HasSuffix(c, ":"):
			a = 'c'
		case strings.HasSuffix(c, ":"):
			a = 'r'
		}
		al = append(al, a)
	}
	return al, true
}

// renderTable draws a Markdown table with box lines, each column as wide
// as its widest cell (wide characters measured), shrinking the widest
// columns and wrapping their cells when the table is wider than width.
// ok is false when rows are not a table (no separator row).
func renderTable(rows []string, st styles, width int) ([]string, bool) {
	if len(rows) < 2 {
		return nil, false
	}
	head := splitRow(rows[0])
	al, ok := alignments(splitRow(rows[1]))
	if !ok {
		return nil, false
	}
	ncol := max(len(head), len(al))
	cells := [][]string{head}
	for _, r := range rows[2:] {
		cells = append(cells, splitRow(r))
	}
	for i := range cells {
		for len(cells[i]) < ncol {
			cells[i] = append(cells[i], "")
		}
		cells[i] = cells[i][:ncol]
		for j, c := range cells[i] {
			if i == 0 {
				c = st.bold(inline(c, st))
			} else {
				c = inline(c, st)
			}
			cells[i][j] = c
		}
	}
	for len(al) < ncol {
		al = append(al, 'l')
	}
	widths := make([]int, ncol)
	for _, r := range cells {
		for j, c := range r {
			widths[j] = max(widths[j], visibleWidth(c), 1)
		}
	}
	// Borders take 3 columns per cell plus one; shrink the widest column
	// until the table fits (down to 4 columns a cell).
	for {
		total := 1
		for _, w := range widths {
			total += w + 3
		}
		if total <= width {
			break
		}
		widest := 0
		for j, w := range widths {
			if w > widths[widest] {
				widest = j
			}
		}
		if widths[widest] <= 4 {
			break
		}
		widths[widest]--
	}
	line := func(l, m, r string) string {
		var b strings.Builder
		b.WriteString(l)
		for j, w := range widths {
			if j > 0 {
				b.WriteString(m)
			}
			b.WriteString(strings.Repeat("─", w+2))
		}
		b.WriteString(r)
		return st.dim(b.String())
	}
	bar := st.dim("│")
	out := []string{line("┌", "┬", "┐")}
	for i, r := range cells {
		wrapped := make([][]string, ncol)
		height := 1
		for j, c := range r {
			wrapped[j] = wrapText(c, widths[j], "", 0, "", 0)
			if visibleWidth(c) <= widths[j] {
				wrapped[j] = []string{c}
			}
			height = max(height, len(wrapped[j]))
		}
		for k := 0; k < height; k++ {
			var b strings.Builder
			b.WriteString(bar)
			for j := range r {
				c := ""
				if k < len(wrapped[j]) {
					c = wrapped[j][k]
				}
				b.WriteString(" " + pad(c, widths[j], al[j]) + " " + bar)
			}
			out = append(out, b.String())
		}
		if i == 0 {
			out = append(out, line("├", "┼", "┤"))
		}
	}
	return append(out, line("└", "┴", "┘")), true
}

// pad fills s to w columns, aligned left, right or centre.
func pad(s string, w int, align byte) string {
	gap := w - visibleWidth(s)
	if gap <= 0 {
		return s
	}
	switch align {
	case 'r':
		return strings.Repeat(" ", gap) + s
	case 'c':
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}
