package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// clientNames are the clients' names on the scoreboard, in both
// languages.
var clientNames = map[string]flow.Text{
	ClientPoll:     {En: "poll", Zh: "轮询"},
	ClientLongPoll: {En: "long-poll", Zh: "长轮询"},
	ClientWatch:    {En: "watch", Zh: "watch"},
}

// boardColumns are the scoreboard's columns: their headings and widths
// (in terminal columns; the first is left-aligned, the others right).
var boardColumns = []struct {
	head  flow.Text
	width int
}{
	{flow.Text{En: "client", Zh: "客户端"}, 10},
	{flow.Text{En: "requests", Zh: "请求数"}, 8},
	{flow.Text{En: "conns", Zh: "连接数"}, 6},
	{flow.Text{En: "bytes in", Zh: "收到字节"}, 10},
	{flow.Text{En: "bytes out", Zh: "发出字节"}, 10},
	{flow.Text{En: "seen alone", Zh: "单独看到"}, 10},
	{flow.Text{En: "median", Zh: "中位延迟"}, 8},
	{flow.Text{En: "max", Zh: "最大延迟"}, 8},
}

// addLine adds one line, in both languages, to res's transcript.
func addLine(res *StepResult, t flow.Text) {
	res.HTTP = append(res.HTTP, t.En)
	res.Transcript = append(res.Transcript, t)
}

// addLinef adds a line formatted in each language from the same
// arguments.
func addLinef(res *StepResult, en, zh string, args ...any) {
	addLine(res, flow.Text{En: fmt.Sprintf(en, args...), Zh: fmt.Sprintf(zh, args...)})
}

// writeScoreboard writes the comparison's transcript: what the clients
// and the writer do, the changes, the scoreboard and what it shows, every
// figure taken from ev.
func writeScoreboard(res *StepResult, c *comparison, ev *WatchCompareEvidence) {
	spacing, interval := c.a.Spacing, c.pollInterval()
	addLinef(res, "-- a writer changes %s %d times, one every %s;",
		"-- 写入方修改 %s %d 次，每 %s 一次；", ev.Object, len(ev.Changes), spacing)
	addLine(res, flow.Text{En: "   (in real time whatever --speed: the comparison is about time)", Zh: "   （不管 --speed 是多少都按真实时间进行：比的就是时间）"})
	addLine(res, flow.Text{En: "   three clients follow it at once, over HTTP/1.1:", Zh: "   三个客户端同时跟踪它，都走 HTTP/1.1："})
	addLinef(res, "   poll: a GET of the object every %s, until it has the last change",
		"   轮询：每 %s GET 一次这个对象，直到拿到最后一次修改", interval)
	addLine(res, flow.Text{En: "   long-poll: a GET, then rounds: a watch from the last resourceVersion,", Zh: "   长轮询：先 GET 一次，然后每轮从最新的 resourceVersion 发一个 watch，"})
	addLine(res, flow.Text{En: "     closed by the client after its first event (no long-poll API exists)", Zh: "     客户端收到第一个事件就关掉它（Kubernetes 没有长轮询接口）"})
	addLine(res, flow.Text{En: "   watch: one watch request; the server writes each change into it", Zh: "   watch：只发一个 watch 请求，服务端把每次修改写进这同一个响应"})
	for _, ch := range ev.Changes {
		addLinef(res, "change %d: resourceVersion %s, written at +%s", "第 %d 次修改：resourceVersion %s，写完于 +%s",
			ch.Index, ch.ResourceVersion, formatMs(ch.WrittenMs))
	}
	writeBoardTable(res, ev)
	for _, s := range ev.Clients {
		writeClientFindings(res, s)
	}
	writeTLSTotals(res, ev)
}

// writeBoardTable writes the scoreboard: a heading and one row per
// client.
func writeBoardTable(res *StepResult, ev *WatchCompareEvidence) {
	var head flow.Text
	for i, col := range boardColumns {
		head.En += boardCell(col.head.En, col.width, i)
		head.Zh += boardCell(col.head.Zh, col.width, i)
	}
	addLine(res, head)
	for _, s := range ev.Clients {
		cells := []string{"", strconv.Itoa(s.Requests), strconv.Itoa(s.Connections), groupDigits(s.HTTPBytesIn), groupDigits(s.HTTPBytesOut),
			fmt.Sprintf("%d/%d", s.SeenAlone, len(s.Seen)), formatMs(s.MedianLateMs), formatMs(s.MaxLateMs)}
		var row flow.Text
		for i, col := range boardColumns {
			en, zh := cells[i], cells[i]
			if i == 0 {
				en, zh = clientNames[s.Client].En, clientNames[s.Client].Zh
			}
			row.En += boardCell(en, col.width, i)
			row.Zh += boardCell(zh, col.width, i)
		}
		addLine(res, row)
	}
	addLine(res, flow.Text{En: "bytes: the HTTP/1.1 messages after TLS decryption, headers included", Zh: "字节：TLS 解密之后的 HTTP/1.1 报文，包括头部"})
	addLine(res, flow.Text{En: "seen alone: changes the client had as a state of their own", Zh: "单独看到：客户端作为单独的状态拿到的修改次数"})
	addLine(res, flow.Text{En: "median, max: how late a change reached the client: from its write being", Zh: "中位、最大延迟：一次修改多晚才到达客户端：从它的写请求得到响应，"})
	addLine(res, flow.Text{En: "  answered to the client having that state or a newer one", Zh: "  到客户端拿到这个或更新的状态为止"})
	if anyEarly(ev) {
		addLine(res, flow.Text{En: "  (below 0: the client had it before the writer had its answer)", Zh: "  （小于 0：客户端比写入方更早拿到了这次修改）"})
	}
}

// boardCell pads s to width columns (a Han character takes two): after
// s in the first column, before it in the others, which a space
// separates.
func boardCell(s string, width, column int) string {
	pad := strings.Repeat(" ", max(width-columnsOf(s), 0))
	if column == 0 {
		return s + pad
	}
	return " " + pad + s
}

// columnsOf is how many terminal columns s takes: two for a Han
// character or full-width punctuation, one for anything else.
func columnsOf(s string) int {
	n := 0
	for _, r := range s {
		n++
		if isCJK(r) {
			n++
		}
	}
	return n
}

// writeClientFindings says which changes the client saw only inside a
// jump, and, for polls, how many answers brought nothing new.
func writeClientFindings(res *StepResult, s ClientScore) {
	name := clientNames[s.Client]
	var jumped []string
	for _, c := range s.Seen {
		if !c.Alone {
			jumped = append(jumped, strconv.Itoa(c.Change))
		}
	}
	if len(jumped) == 0 {
		addLine(res, flow.Text{En: name.En + ": had every change as a state of its own",
			Zh: name.Zh + "：每一次修改都作为单独的状态拿到了"})
	} else {
		word := "change"
		if len(jumped) > 1 {
			word = "changes"
		}
		addLine(res, flow.Text{En: fmt.Sprintf("%s: jumped over %s %s: it only ever had a later state", name.En, word, strings.Join(jumped, ", ")),
			Zh: fmt.Sprintf("%s：跳过了第 %s 次修改：只拿到过比它更晚的状态", name.Zh, strings.Join(jumped, "、"))})
	}
	if len(s.RoundWaitsMs) > 0 {
		waits := make([]string, 0, len(s.RoundWaitsMs))
		for i, w := range s.RoundWaitsMs {
			if i == maxWaitsShown {
				waits = append(waits, "…")
				break
			}
			waits = append(waits, formatMs(w))
		}
		addLinef(res, "   its rounds, from request to event: %s", "   每一轮从发出请求到收到事件：%s", strings.Join(waits, ", "))
	}
	if s.Client == ClientPoll {
		addLinef(res, "   %d of its %d answers were unchanged (the resourceVersion before)",
			"   它的 %[2]d 个响应里有 %[1]d 个没有变化（和上一个的 resourceVersion 相同）", s.UnchangedAnswers, s.Requests)
	}
}

// maxWaitsShown is how many long-poll rounds' waits fit on a line.
const maxWaitsShown = 7

// anyEarly reports whether a client had a change before its writer had
// the write's answer.
func anyEarly(ev *WatchCompareEvidence) bool {
	for _, s := range ev.Clients {
		for _, c := range s.Seen {
			if c.LateMs < 0 {
				return true
			}
		}
	}
	return false
}

// writeTLSTotals writes each client's bytes on the TCP connection,
// TLS handshakes included.
func writeTLSTotals(res *StepResult, ev *WatchCompareEvidence) {
	addLine(res, flow.Text{En: "on the wire with TLS, handshakes included (bytes in / out):", Zh: "算上 TLS（包括握手）线上的字节数（收到 / 发出）："})
	for _, s := range ev.Clients {
		name := clientNames[s.Client]
		totals := " " + groupDigits(s.TLSBytesIn) + " / " + groupDigits(s.TLSBytesOut)
		addLine(res, flow.Text{En: "   " + boardCell(name.En, 10, 0) + totals, Zh: "   " + boardCell(name.Zh, 10, 0) + totals})
	}
}

// groupDigits writes n with a comma every three digits (12,345).
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatMs writes a time in milliseconds for the scoreboard: 0.4ms
// below 10ms, 412ms below a second, 1.93s above.
func formatMs(ms float64) string {
	d := time.Duration(ms * float64(time.Millisecond))
	switch abs := max(d, -d); {
	case abs < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", ms)
	case abs < time.Second:
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.2fs", ms/1000)
}
