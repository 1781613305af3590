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
	// a watch event
	"watch_event": {En: "watch event %s, resourceVersion %s", Zh: "watch 事件 %s，resourceVersion %s"},
	"watch_to":    {En: "to %s on GET %s (%s, %s)", Zh: "发给 %s，经 GET %s（%s，%s）"},
	"frame_bytes": {En: "frame %d bytes: %s", Zh: "帧 %d 字节：%s"},
	"type_frame":  {En: "%s  frame %d bytes", Zh: "%s  帧 %d 字节"},
	"chunk":       {En: "on the wire: one HTTP/1.1 chunk (size in hex, CRLF, bytes, CRLF)", Zh: "线上字节：一个 HTTP/1.1 chunk（十六进制长度、CRLF、数据、CRLF）"},
	"h2_data":     {En: "on the wire: %d bytes in HTTP/2 DATA frames of the watch's stream", Zh: "线上字节：%d 字节，放在该 watch 流的 HTTP/2 DATA 帧里"},
	// a scheduling decision
	"attempt_nodes":  {En: "scheduling attempt %d: %d nodes", Zh: "第 %d 次调度尝试：%d 个节点"},
	"attempt_node":   {En: "scheduling attempt %d: %d node", Zh: "第 %d 次调度尝试：%d 个节点"},
	"filtered_by":    {En: "%s %-12s filtered out by %s: %s", Zh: "%s %-12s 被 %s 过滤：%s"},
	"fits_alone":     {En: "%s %-12s fits; the only node that does, so scoring is skipped", Zh: "%s %-12s 可行；只有它可行，因此不打分"},
	"fits_total":     {En: "%s %-12s fits; total %d = %s", Zh: "%s %-12s 可行；总分 %d = %s"},
	"chosen":         {En: "chosen: %s", Zh: "选中：%s"},
	"no_fit":         {En: "no node fits: %s", Zh: "没有可行的节点：%s"},
	"attempt_chosen": {En: "attempt %d → %s", Zh: "第 %d 次尝试 → %s"},
	"attempt_no_fit": {En: "attempt %d: no node fits", Zh: "第 %d 次尝试：没有合适的节点"},
	"col_node":       {En: "NODE", Zh: "节点"},
	"col_filter":     {En: "FILTER", Zh: "过滤"},
	"col_score":      {En: "SCORE", Zh: "得分"},
	"fit":            {En: "fit", Zh: "可行"},
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
	"validated":     {En: "validated", Zh: "校验"},
	"read":          {En: "read", Zh: "读取"},
	"stored":        {En: "stored", Zh: "写入"},
	"reviewed":      {En: "reviewed", Zh: "审查"},
	"responded":     {En: "responded", Zh: "响应"},
	"panicked":      {En: "panicked", Zh: "panic"},
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
