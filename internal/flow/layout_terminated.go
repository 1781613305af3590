package flow

import "fmt"

// terminatedTexts are the words of a WatchTermination's lines.
var terminatedTexts = [3]Text{
	{En: "watch cache dropped the watcher of %s (%s): its buffer stayed full",
		Zh: "watch cache 丢弃了 %s 的 watcher（%s）：它的缓冲一直是满的"},
	{En: "buffer %d of %d changes (discarded); events not yet written %d of %d (still sent)",
		Zh: "缓冲 %d/%d 个变化（丢弃）；尚未写出的事件 %d/%d（仍会发出）"},
	{En: "last change queued: resourceVersion %[1]d; no room for %[2]d after waiting %[3]s",
		Zh: "最后入队的变化：resourceVersion %[1]d；等了 %[3]s 仍放不下 %[2]d"},
}

// terminated lays out a watcher the watch cache gave up on: who watched
// what, how full its buffers were, the resourceVersions, the wait. Brief
// and Full show the same lines.
func (l Layout) terminated(ev Event, _ Context) []Line {
	t := ev.Terminated
	say := func(i int, args ...any) string { return fmt.Sprintf(terminatedTexts[i].In(l.Lang), args...) }
	return []Line{
		line(RoleWarning, 2, say(0, t.User, t.Proto)),
		cut(RoleField, "GET "+t.URI),
		line(RoleField, 2, say(1, t.Queued, t.BufferSize, t.ResultQueued, t.ResultSize)),
		line(RoleField, 2, say(2, t.LastQueued, t.GaveUpAt, FormatDuration(t.Waited))),
	}
}
