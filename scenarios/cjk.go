package scenarios

import "unicode"

// unfoldCJK removes the spaces YAML's folded style puts where a Chinese
// line was broken: a space between two CJK characters, or next to CJK
// punctuation, is not one the author meant. Spaces between Chinese and
// Latin words ("Pod 写入 etcd") stay.
func unfoldCJK(s string) string {
	rs := []rune(s)
	out := make([]rune, 0, len(rs))
	for i, r := range rs {
		if r == ' ' && i > 0 && i+1 < len(rs) {
			prev, next := rs[i-1], rs[i+1]
			if (isCJK(prev) && isCJK(next)) || isCJKPunct(prev) || isCJKPunct(next) {
				continue
			}
		}
		out = append(out, r)
	}
	return string(out)
}

// isCJK reports a Han character or CJK punctuation.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || isCJKPunct(r)
}

// isCJKPunct reports the full-width punctuation Chinese text uses.
func isCJKPunct(r rune) bool {
	return (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFF65) || r == '“' || r == '”' || r == '‘' || r == '’' || r == '…' || r == '—'
}
