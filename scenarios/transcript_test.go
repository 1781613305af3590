package scenarios

import (
	"regexp"
	"slices"
	"testing"
)

var verb = regexp.MustCompile(`%[a-z]`)

// TestTranscriptFormatsAgree: each Chinese transcript line takes the same
// arguments, in the same order, as its English form.
func TestTranscriptFormatsAgree(t *testing.T) {
	for en, zh := range transcriptZh {
		if a, b := verb.FindAllString(en, -1), verb.FindAllString(zh, -1); !slices.Equal(a, b) {
			t.Errorf("%q takes %v, its Chinese %q takes %v", en, a, zh, b)
		}
	}
}

func TestAddTranscript(t *testing.T) {
	var res StepResult
	addTranscript(&res, "-- poll %d of %d", 1, 3)
	addTranscript(&res, "< HTTP/1.1 200 OK")
	addTranscript(&res, "< last chunk %q: size 0, %s, then the empty line: the response is complete", "0\r\n\r\n", "no trailer fields")
	if got, want := transcriptIn(res, "en"), []string{"-- poll 1 of 3", "< HTTP/1.1 200 OK", `< last chunk "0\r\n\r\n": size 0, no trailer fields, then the empty line: the response is complete`}; !slices.Equal(got, want) {
		t.Errorf("en %q, want %q", got, want)
	}
	if got, want := transcriptIn(res, "zh"), []string{"-- 第 1 次轮询，共 3 次", "< HTTP/1.1 200 OK", `< 最后一个 chunk "0\r\n\r\n"：长度 0，没有 trailer 字段，然后是空行：响应结束`}; !slices.Equal(got, want) {
		t.Errorf("zh %q, want %q", got, want)
	}
	if !slices.Equal(res.HTTP, transcriptIn(res, "en")) {
		t.Errorf("HTTP %q is not the English transcript", res.HTTP)
	}
}
