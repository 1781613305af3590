package flow

import "fmt"

// evidenceWords are the words a Layout writes around the evidence, by
// key, in both languages. Many are fmt formats. Protocol tokens (POST,
// ADDED, resourceVersion, revision, plugin names, field paths) stay as
// they are in both.
var evidenceWords = map[string]Text{
	// a request trace
	"user":            {En: "user", Zh: "用户"},
	"route":           {En: "route", Zh: "路由"},
	"unauthenticated": {En: "(unauthenticated)", Zh: "（未认证）"},
	"user_groups":     {En: "user %s  groups %s", Zh: "用户 %s  组 %s"},
	"responded":       {En: "→ %d, %d bytes in %s", Zh: "→ %d，%d 字节，用时 %s"},
	"in_progress":     {En: "in progress (the trace so far)", Zh: "进行中（目前的轨迹）"},
	"as":              {En: "as", Zh: "身份"},
	"by_instance":     {En: "by %s", Zh: "执行者：%s"},
	"no_route":        {En: "no route", Zh: "未匹配路由"},
	// an etcd write
	"revision_rv":      {En: "revision %d = resourceVersion \"%d\"", Zh: "revision %d = resourceVersion \"%d\""},
	"revision_prev_rv": {En: "revision %d (previous revision %d) = resourceVersion \"%d\"", Zh: "revision %d（上一个 revision %d）= resourceVersion \"%d\""},
	"value_bytes":      {En: "value %d bytes: %s", Zh: "值 %d 字节：%s"},
	"revision_prev":    {En: "revision %d (previous %d)", Zh: "revision %d（上一个 %d）"},
	"changes":          {En: "changed since revision %d:", Zh: "相对 revision %d 的变化："},
	"more_changes":     {En: "… and %d more", Zh: "… 另有 %d 处"},
	"revision_bytes":   {En: "revision %d  %d bytes", Zh: "revision %d  %d 字节"},
	"revision_prev_bytes": {En: "revision %d  (previous %d)  %d bytes",
		Zh: "revision %d（上一个 %d）  %d 字节"},
	"created":     {En: "created: the whole value is new", Zh: "新建：整个值都是新的"},
	"loading":     {En: "reading revision %d from etcd…", Zh: "正在从 etcd 读取修订版本 %d…"},
	"history_err": {En: "history unavailable: %v", Zh: "历史不可用：%v"},
	"diff_prev":   {En: "diff against revision %d (etcd MVCC history)", Zh: "与修订版本 %d 的差异（etcd MVCC 历史）"},
	// who an etcd write was for, what took the revisions in between
	"written_for":       {En: "written for %s %s, sent by %s", Zh: "为请求 %s %s 而写，发送者 %s"},
	"anonymous":         {En: "an anonymous user", Zh: "匿名用户"},
	"the_scheduler":     {En: "(the scheduler)", Zh: "（调度器）"},
	"the_kubelet":       {En: "(the kubelet of %s)", Zh: "（%s 的 kubelet）"},
	"by":                {En: "by %s", Zh: "来自 %s"},
	"for_request":       {En: "for %s %s by %s", Zh: "对应 %s %s，来自 %s"},
	"between":           {En: "revisions %d to %d (%d) went to other keys:", Zh: "revision %d 到 %d（%d 个）属于其他键："},
	"between_one":       {En: "revision %d went to another key:", Zh: "revision %d 属于另一个键："},
	"between_more":      {En: "… and %d more", Zh: "… 另有 %d 个"},
	"between_elsewhere": {En: "%d not written through this API server (by etcd itself, as when a lease expires, by another client, or too long ago to remember)", Zh: "%d 个不是经由这个 API Server 写的（etcd 自己写的，比如租约到期；别的客户端写的；或是早得已经记不住了）"},
	// a watch event
	"watch_event": {En: "watch event %s, resourceVersion %s", Zh: "watch 事件 %s，resourceVersion %s"},
	"watch_to":    {En: "to %s on GET %s (%s, %s)", Zh: "发给 %s，经 GET %s（%s，%s）"},
	"frame_bytes": {En: "frame %d bytes: %s", Zh: "帧 %d 字节：%s"},
	"frame_pb": {En: "frame %d bytes: a 4-byte length prefix %s (%d bytes follow), then %s",
		Zh: "帧 %d 字节：先是 4 字节的长度前缀 %s（后面还有 %d 字节），然后是%s"},
	"pb_prefix": {En: "bytes 0-3: the protobuf stream's length prefix, big-endian: %d bytes follow (not an HTTP/2 frame header)",
		Zh: "第 0-3 字节：protobuf 流的长度前缀，大端序：后面还有 %d 字节（不是 HTTP/2 的帧头）"},
	"pb_event": {En: "a protobuf WatchEvent: type %s, object %d bytes", Zh: "一个 protobuf 编码的 WatchEvent：类型 %s，对象 %d 字节"},
	"pb_event_envelope": {En: "a protobuf WatchEvent: type %s, object %d bytes (the \"k8s\\x00\" envelope of a %s %s)",
		Zh: "一个 protobuf 编码的 WatchEvent：类型 %s，对象 %d 字节（一个 %s %s，外面是 \"k8s\\x00\" 封装）"},
	"wire_chunk": {En: "on the wire: one HTTP/1.1 chunk, the size line %q, these bytes, then \"\\r\\n\"",
		Zh: "线上字节：一个 HTTP/1.1 chunk，先是长度行 %q，再是这些字节，最后是 \"\\r\\n\""},
	"wire_h2": {En: "on the wire: these %d bytes in DATA frames of the watch's HTTP/2 stream; each DATA frame has a 9-byte header (length, type, flags, stream id) that the HTTP/2 layer adds, which the API server does not see",
		Zh: "线上字节：这 %d 字节放在该 watch 的 HTTP/2 流的 DATA 帧里；每个 DATA 帧都有一个 9 字节的帧头（长度、类型、标志、流 ID），由 HTTP/2 层加上，API Server 看不到它"},
	"type_frame": {En: "%s  frame %d bytes", Zh: "%s  帧 %d 字节"},
	"chunk":      {En: "on the wire: one HTTP/1.1 chunk (size in hex, CRLF, bytes, CRLF)", Zh: "线上字节：一个 HTTP/1.1 chunk（十六进制长度、CRLF、数据、CRLF）"},
	"h2_data":    {En: "on the wire: %d bytes in HTTP/2 DATA frames of the watch's stream", Zh: "线上字节：%d 字节，放在该 watch 流的 HTTP/2 DATA 帧里"},
	// a scheduling decision
	"attempt_nodes":     {En: "scheduling attempt %d: %d nodes", Zh: "第 %d 次调度尝试：%d 个节点"},
	"attempt_node":      {En: "scheduling attempt %d: %d node", Zh: "第 %d 次调度尝试：%d 个节点"},
	"filtered_by":       {En: "%s %-12s filtered out by %s: %s", Zh: "%s %-12s 被 %s 过滤：%s"},
	"fits_alone":        {En: "%s %-12s fits; the only node that does, so scoring is skipped", Zh: "%s %-12s 可行；只有它可行，因此不打分"},
	"fits_total":        {En: "%s %-12s fits; total %d = %s", Zh: "%s %-12s 可行；总分 %d = %s"},
	"chosen":            {En: "chosen: %s", Zh: "选中：%s"},
	"tie":               {En: "a tie: %d nodes (%s) share the highest total; kube-scheduler picks one of them at random, here %s", Zh: "平分：%d 个节点（%s）总分并列最高；kube-scheduler 在它们之中随机选一个，这次是 %s"},
	"no_fit":            {En: "no node fits: %s", Zh: "没有可行的节点：%s"},
	"preempt_chosen":    {En: "preemption: evicting lower-priority pods on %s (%s); the pod is nominated to it", Zh: "抢占：驱逐 %s 上优先级更低的 Pod（%s）；Pod 被提名到该节点"},
	"preempt_candidate": {En: "%s %s: victims %s", Zh: "%s %s：牺牲者 %s"},
	"preempt_pdb":       {En: "(%d against a PodDisruptionBudget)", Zh: "（其中 %d 个违反 PodDisruptionBudget）"},
	"attempt_chosen":    {En: "attempt %d → %s", Zh: "第 %d 次尝试 → %s"},
	"attempt_no_fit":    {En: "attempt %d: no node fits", Zh: "第 %d 次尝试：没有合适的节点"},
	"col_node":          {En: "NODE", Zh: "节点"},
	"col_filter":        {En: "FILTER", Zh: "过滤"},
	"col_score":         {En: "SCORE", Zh: "得分"},
	"fit":               {En: "fit", Zh: "可行"},
	// a runtime action, a status report
	"runtime":      {En: "runtime", Zh: "运行时"},
	"status_as":    {En: "PATCH pods/status as %s: phase %s", Zh: "PATCH pods/status，身份 %s：phase %s"},
	"patch_bytes":  {En: "patch %d bytes: %s", Zh: "补丁 %d 字节：%s"},
	"status_patch": {En: "PATCH pods/%s/status  as %s  → phase %s", Zh: "PATCH pods/%s/status  身份 %s  → phase %s"},
}

// stepNames are the steps of a request trace (Step.Name) in both
// languages; a name not listed is shown as it is.
var stepNames = map[string]Text{
	"received":      {En: "received", Zh: "收到"},
	"goroutine":     {En: "goroutine", Zh: "goroutine"},
	"authenticated": {En: "authenticated", Zh: "认证"},
	"impersonated":  {En: "impersonated", Zh: "模拟身份"},
	"authorized":    {En: "authorized", Zh: "鉴权"},
	"limited":       {En: "limited", Zh: "限流"},
	"held":          {En: "held", Zh: "暂停"},
	"dispatched":    {En: "dispatched", Zh: "分发"},
	"decoded":       {En: "decoded", Zh: "解码"},
	"defaulted":     {En: "defaulted", Zh: "默认值"},
	"admission":     {En: "admission", Zh: "准入"},
	"escalation":    {En: "escalation", Zh: "提权检查"},
	"validated":     {En: "validated", Zh: "校验"},
	"read":          {En: "read", Zh: "读取"},
	"stored":        {En: "stored", Zh: "写入"},
	"reviewed":      {En: "reviewed", Zh: "审查"},
	"watch":         {En: "watch", Zh: "watch"},
	"streamed":      {En: "streamed", Zh: "流式写出"},
	"responded":     {En: "responded", Zh: "响应"},
	"panicked":      {En: "panicked", Zh: "panic"},
	// The servers of the delegation chain, each a step of its own.
	"aggregator":     {En: "aggregator", Zh: "聚合层"},
	"kube-apiserver": {En: "kube-apiserver", Zh: "kube-apiserver"},
	"apiextensions":  {En: "apiextensions", Zh: "apiextensions"},
	"not-found":      {En: "not-found", Zh: "not-found"},
}

// outcomes are the outcomes of a step (Step.Outcome) and the result of
// a runtime action (RuntimeAction.Result) in both languages; one not
// listed (ErrImagePull, exit code 1) is shown as it is.
var outcomes = map[string]Text{
	"ok":        {En: "ok", Zh: "成功"},
	"failed":    {En: "failed", Zh: "失败"},
	"allowed":   {En: "allowed", Zh: "允许"},
	"denied":    {En: "denied", Zh: "拒绝"},
	"defaulted": {En: "defaulted", Zh: "补默认值"},
	"passed":    {En: "passed", Zh: "通过"},
	"skipped":   {En: "skipped", Zh: "跳过"},
	"rejected":  {En: "rejected", Zh: "驳回"},
	// What a server of the delegation chain did with a request.
	"served":    {En: "served", Zh: "处理"},
	"delegated": {En: "delegated", Zh: "委托"},
	"proxied":   {En: "proxied", Zh: "代理"},
	"not found": {En: "not found", Zh: "未找到"},
}

// word returns evidenceWords[key] in l's language.
func (l Layout) word(key string) string {
	return evidenceWords[key].In(l.Lang)
}

// printf formats evidenceWords[key], in l's language, with args.
func (l Layout) printf(key string, args ...any) string {
	return fmt.Sprintf(l.word(key), args...)
}

// translated returns s from table in l's language, or s itself when the
// table does not have it.
func (l Layout) translated(table map[string]Text, s string) string {
	if t, ok := table[s]; ok {
		return t.In(l.Lang)
	}
	return s
}
