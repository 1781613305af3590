package scenarios

import (
	"fmt"

	"github.com/kubesim/kubesim/internal/flow"
)

// transcriptZh are the Chinese forms of the transcript lines that carry
// our words, by their English format. Lines of the protocol itself
// (request and status lines, headers, bytes) are the same in both
// languages and are not listed.
var transcriptZh = map[string]string{
	"-- poll %d of %d":                                         "-- 第 %d 次轮询，共 %d 次",
	"   resourceVersion %s":                                    "   resourceVersion %s",
	"   phase %s, %d container restarts":                       "   phase %s，容器共重启 %d 次",
	"-- the current state first, to learn its resourceVersion": "-- 先读一次当前状态，得到它的 resourceVersion",
	"-- long-poll round %d of %d: a watch from resourceVersion %s, which the client closes after its first event": "-- 第 %d 轮长轮询，共 %d 轮：从 resourceVersion %s 开始的 watch，客户端收到第一个事件后就关闭它",
	"   round over; the next one from resourceVersion %s":                                                         "   本轮结束；下一轮从 resourceVersion %s 开始",
	"< chunk %q + %d bytes + \"\\r\\n\": %s":                                                                      "< chunk %q + %d 字节 + \"\\r\\n\"：%s",
	"  (%d events read: the client closes the connection)":                                                        "  （已读 %d 个事件：客户端关闭连接）",
	"< last chunk %q: size 0, %s, then the empty line: the response is complete":                                  "< 最后一个 chunk %q：长度 0，%s，然后是空行：响应结束",
	"< body (%d bytes): %s":                                                  "< 响应体（%d 字节）：%s",
	"> %s %s (HTTP/2: a HEADERS frame on a new stream)":                      "> %s %s（HTTP/2：新 stream 上的一个 HEADERS 帧）",
	"< DATA (%d bytes): %s":                                                  "< DATA（%d 字节）：%s",
	"  (%d events read: the client resets the stream, the connection stays)": "  （已读 %d 个事件：客户端重置这个 stream，连接保留）",
	"< END_STREAM after %d events":                                           "< 读完 %d 个事件后 END_STREAM",
	"(%d events read: the watch is cancelled)":                               "（已读 %d 个事件：取消 watch）",
	"Complete: filled %s":                                                    "Complete：填入默认值 %s",
	"Validate: ok":                                                           "Validate：通过",
	"Validate: %d problems, all reported at once (exit 2):":                  "Validate：%d 个问题，一次全部报告（退出码 2）：",
	"this cluster's start, as serve --trace prints it (%d steps):":           "本集群的启动过程，和 serve --trace 打印的一样（共 %d 步）：",

	// http2Frames
	"* TLS to %s, ALPN offering h2: the server chose %q":                        "* TLS 连到 %s，ALPN 只提供 h2：服务端选了 %q",
	"> %q (the client preface, %d bytes)":                                       "> %q（客户端连接前言，%d 字节）",
	"  stream %d: %s":                                                           "  stream %d：%s",
	"(%d events read: the client resets its streams and closes the connection)": "（已读 %d 个事件：客户端重置它的 stream 并关闭连接）",
	"* connection closed":                                                       "* 连接已关闭",
}

// transcriptArgZh are the Chinese forms of the words passed to those
// lines as arguments.
var transcriptArgZh = map[string]string{
	"no trailer fields": "没有 trailer 字段",
}

// registerTranscriptZh adds the Chinese forms of an action's transcript
// lines (English format → Chinese format) to transcriptZh. An action file
// that writes lines of its own calls it from an init function, so that
// the words of each action stay in its file. A format registered twice
// is a programming error.
func registerTranscriptZh(forms map[string]string) {
	for en, zh := range forms {
		if _, dup := transcriptZh[en]; dup {
			panic("scenarios: transcript line registered twice: " + en)
		}
		transcriptZh[en] = zh
	}
}

// addTranscript adds a line to res's transcript: in English to HTTP (as
// the JSON output has it) and in both languages to Transcript.
func addTranscript(res *StepResult, format string, args ...any) {
	en := fmt.Sprintf(format, args...)
	res.HTTP = append(res.HTTP, en)
	zh := en
	if f, ok := transcriptZh[format]; ok {
		zhArgs := make([]any, len(args))
		for i, a := range args {
			if s, ok := a.(string); ok && transcriptArgZh[s] != "" {
				a = transcriptArgZh[s]
			}
			zhArgs[i] = a
		}
		zh = fmt.Sprintf(f, zhArgs...)
	}
	res.Transcript = append(res.Transcript, flow.Text{En: en, Zh: zh})
}

// addTranscriptText adds a line already in both languages to res's
// transcript (its English to HTTP).
func addTranscriptText(res *StepResult, t flow.Text) {
	res.HTTP = append(res.HTTP, t.En)
	res.Transcript = append(res.Transcript, t)
}

// transcriptIn returns res's transcript in lang: Transcript when it has
// every line, else HTTP.
func transcriptIn(res StepResult, lang string) []string {
	if len(res.Transcript) != len(res.HTTP) {
		return res.HTTP
	}
	out := make([]string, len(res.Transcript))
	for i, t := range res.Transcript {
		out[i] = t.In(lang)
	}
	return out
}
