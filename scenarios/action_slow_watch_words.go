package scenarios

// The Chinese forms of slowWatch's transcript lines (the frames and the
// events are the protocol's, the same in both languages).
func init() {
	registerTranscriptZh(map[string]string{
		"-- Lease %s is at resourceVersion %s: the watch starts there":                                                                                              "-- Lease %s 当前的 resourceVersion 是 %s：watch 从这里开始",
		"-- the client stops reading stream 1: no WINDOW_UPDATE, so the server may send %d bytes of it and no more":                                                 "-- 客户端不再读 stream 1：不发 WINDOW_UPDATE，于是服务端在这个 stream 上最多只能发 %d 字节",
		"-- meanwhile the writer patched the Lease %d times: resourceVersions %s to %s (its requests are not listed)":                                               "-- 与此同时写入方把 Lease 修改了 %d 次：resourceVersion 从 %s 到 %s（这些请求不逐条列出）",
		"-- meanwhile stream 1 brought %d bytes (whole events: %d): the window was spent, the server's writes blocked":                                              "-- 这期间 stream 1 送来了 %d 字节（%d 个完整事件）：窗口用完，服务端的写阻塞了",
		"!! the API server did not drop the watcher":                                                                                                                "!! API Server 没有丢弃这个 watcher",
		"!! the API server's watch cache dropped the watcher: its buffer held %d of %d changes (discarded); %d of %d events made were not yet written (still sent)": "!! API Server 的 watch cache 丢弃了这个 watcher：缓冲里有 %d/%d 个变化（丢弃）；已生成尚未写出的事件 %d/%d 个（仍会发出）",
		"   the last change it queued: resourceVersion %d; no room for %d, after waiting %s (its dispatch budget)":                                                  "   最后入队的变化：resourceVersion %d；%d 放不下了，此前等了 %s（它的派发预算）",
		"-- the client reads again: it gives back %d bytes of window, on stream 1 and on the connection":                                                            "-- 客户端重新开始读：在 stream 1 和整个连接上各归还 %d 字节窗口",
		"-- the server ended stream 1 (%s) after %d events: no ERROR event, the watch just ends":                                                                    "-- 服务端结束了 stream 1（%s），此前共送来 %d 个事件：没有 ERROR 事件，watch 就这样结束",
		"-- the last resourceVersion the client read: %s; it watches again from there on stream 3, as client-go's reflector does":                                   "-- 客户端读到的最后一个 resourceVersion：%s；它在 stream 3 上从这里重新 watch，和 client-go 的 reflector 一样",
		"!! the re-watch did not bring every change within %s":                                                                                                      "!! 重新 watch 在 %s 内没有送来全部变化",
		"(%d events read on stream 3: the client resets it and closes the connection)":                                                                              "（stream 3 上读到 %d 个事件：客户端重置它并关闭连接）",
		"-- %d changes written; stream 1 delivered %d of them, stream 3 %d: %d missed, %d delivered twice":                                                          "-- 共写入 %d 个变化；stream 1 送来其中 %d 个，stream 3 送来 %d 个：漏掉 %d 个，重复 %d 个",
	})
}
