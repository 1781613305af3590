package flow

import "testing"

func TestTextIn(t *testing.T) {
	tx := Text{En: "hello", Zh: "你好"}
	for _, tc := range []struct{ lang, want string }{{"en", "hello"}, {"zh", "你好"}, {"fr", "hello"}, {"", "hello"}} {
		if got := tx.In(tc.lang); got != tc.want {
			t.Errorf("In(%q) = %q, want %q", tc.lang, got, tc.want)
		}
	}
	if got := (Text{En: "only"}).In("zh"); got != "only" {
		t.Errorf("missing zh: got %q, want the English fallback", got)
	}
	if got := Stages[2].Title.In("zh"); got != "调度器经 Watch 收到通知" {
		t.Errorf("Stages[2].Title.In(zh) = %q", got)
	}
}
