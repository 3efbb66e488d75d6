package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Table widths, in CSS pixels, estimated from the text: a table wider than
// the page would hide its last columns behind a scrollbar, so fitTables
// splits it into parts that each repeat its key columns. The estimate is
// conservative (the widest characters of the tables' 12.3 px face); the
// browser test measures the real widths at 1280 pixels.
const (
	tableWidth = 1000 // main's 1080 px less its padding, less a margin
	charWidth  = 7.6  // a digit or letter of the 12.3 px table face, bold
	cellPad    = 18   // the cell's padding and border
	wrapWidth  = 221  // the min-width of a cell that wraps (18em)
)

// colWidth estimates a column's width: its widest cell, and its header's
// longest word (headers wrap at spaces).
func colWidth(t *table, i int) float64 {
	w := 0
	for _, word := range strings.Fields(t.Head[i]) {
		w = max(w, utf8.RuneCountInString(word))
	}
	px := float64(w) * charWidth
	if c := t.Class[i]; c == "hash" || c == "wrap" {
		return max(px, wrapWidth) + cellPad
	}
	for _, r := range t.Rows {
		if i < len(r.Cells) {
			px = max(px, float64(utf8.RuneCountInString(r.Cells[i]))*charWidth)
		}
	}
	return px + cellPad
}

// split returns t as parts no wider than tableWidth, each with t's first
// Keys columns (at least one) and a share of the others in order; t itself
// when it fits.
func split(t *table) []*table {
	if len(t.Class) < len(t.Head) {
		t.Class = append(t.Class, make([]string, len(t.Head)-len(t.Class))...)
	}
	keys := min(max(t.Keys, 1), len(t.Head))
	keyW := 0.0
	for i := range keys {
		keyW += colWidth(t, i)
	}
	var parts [][]int
	var cur []int
	w := keyW
	for i := keys; i < len(t.Head); i++ {
		cw := colWidth(t, i)
		if len(cur) > 0 && w+cw > tableWidth {
			parts = append(parts, cur)
			cur, w = nil, keyW
		}
		cur = append(cur, i)
		w += cw
	}
	if len(cur) > 0 || len(parts) == 0 {
		parts = append(parts, cur)
	}
	if len(parts) == 1 {
		return []*table{t}
	}
	out := make([]*table, len(parts))
	for p, cols := range parts {
		idx := make([]int, 0, keys+len(cols))
		for i := range keys {
			idx = append(idx, i)
		}
		idx = append(idx, cols...)
		part := &table{Caption: fmt.Sprintf("%s (part %d of %d: columns %s to %s)", t.Caption, p+1, len(parts),
			t.Head[cols[0]], t.Head[cols[len(cols)-1]]), Keys: keys}
		for _, i := range idx {
			part.Head = append(part.Head, t.Head[i])
			part.Class = append(part.Class, t.Class[i])
		}
		for _, r := range t.Rows {
			row := tableRow{Mark: r.Mark, Swatch: r.Swatch}
			for _, i := range idx {
				c := ""
				if i < len(r.Cells) {
					c = r.Cells[i]
				}
				row.Cells = append(row.Cells, c)
			}
			part.Rows = append(part.Rows, row)
		}
		out[p] = part
	}
	return out
}

// fitTables splits the page's wide tables (split).
func fitTables(pg *page) {
	for i := range pg.Sections {
		var blocks []block
		for _, b := range pg.Sections[i].Blocks {
			if b.Table == nil {
				blocks = append(blocks, b)
				continue
			}
			for _, part := range split(b.Table) {
				blocks = append(blocks, block{Table: part})
			}
		}
		pg.Sections[i].Blocks = blocks
	}
}
