package flow

import "testing"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain text stays", "Pod 写入 etcd\n\tindented", "Pod 写入 etcd\n\tindented"},
		{"OSC title ended by BEL", "a\x1b]0;pwned\x07b", "ab"},
		{"OSC title ended by ST", "a\x1b]0;pwned\x1b\\b", "ab"},
		{"OSC 8 hyperlink", "a\x1b]8;;http://x\x07link\x1b]8;;\x07b", "alinkb"},
		{"clear screen", "a\x1b[2J\x1b[Hb", "ab"},
		{"colour", "a\x1b[31mred\x1b[0mb", "aredb"},
		{"DCS", "a\x1bPq#0\x1b\\b", "ab"},
		{"lone ESC", "a\x1bcb", "ab"},
		{"unterminated OSC", "a\x1b]0;pwned", "a"},
		{"C0 controls", "a\x07b\rc\bd\x00e\x7ff", "abcdef"},
		{"8-bit CSI", "a\x9b2Jb", "ab"},
		{"C1 CSI as UTF-8", "a\u009b2Jb", "a2Jb"},
		{"C1 OSC as UTF-8", "a\u009d0;t\u009cb", "a0;tb"},
		{"invalid UTF-8", "a\xffb", "ab"},
		{"replacement character stays", "a\ufffdb", "a\ufffdb"},
		{"right-to-left override shown", "access\u202e lvl\u202c", "access<U+202E> lvl<U+202C>"},
		{"isolates shown", "a\u2066b\u2069c\u2067d\u2068e", "a<U+2066>b<U+2069>c<U+2067>d<U+2068>e"},
		{"marks shown", "a\u200eb\u200fc\u061cd", "a<U+200E>b<U+200F>c<U+061C>d"},
		{"embeddings shown", "\u202aa\u202bb\u202dc", "<U+202A>a<U+202B>b<U+202D>c"},
		{"zero-width space and BOM shown", "web\u200b-1\ufeff", "web<U+200B>-1<U+FEFF>"},
		{"zero-width joiner stays", "👩\u200d💻 می\u200cخواهم", "👩\u200d💻 می\u200cخواهم"},
		{"with an escape sequence", "\x1b[31m\u202eevil", "<U+202E>evil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Printable(tc.in); got != tc.want {
				t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := (Text{En: "x\x1b[2J", Zh: "\x1b]0;t\x07中"}).Printable(); got != (Text{En: "x", Zh: "中"}) {
		t.Errorf("Text.Printable = %+v", got)
	}
}
