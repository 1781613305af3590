package tui

import "github.com/kubesim/kubesim/internal/flow"

// uiText holds the TUI's own words in both languages, by the key tr takes.
var uiText = map[string]flow.Text{
	"auto":          {En: "AUTO", Zh: "自动"},
	"step":          {En: "STEP", Zh: "单步"},
	"held":          {En: "held at stage %d: %s — space to go on", Zh: "暂停于第 %d 阶段：%s — 按空格继续"},
	"held_step":     {En: "next: step %s — space to run it", Zh: "下一步：%s — 按空格执行"},
	"starting":      {En: "starting a fresh cluster for %s…", Zh: "正在为 %s 启动新集群…"},
	"replay":        {En: "replay of a recorded session: no cluster runs", Zh: "回放录制的会话：没有运行集群"},
	"pipeline":      {En: "Pipeline", Zh: "流水线"},
	"evidence":      {En: "Evidence", Zh: "证据"},
	"events":        {En: "Events (kubectl get events -w)", Zh: "事件 (kubectl get events -w)"},
	"cluster":       {En: "Cluster", Zh: "集群"},
	"step_of":       {En: "Step %d/%d", Zh: "第 %d/%d 步"},
	"waiting_pod":   {En: "waiting for a pod to be created…", Zh: "等待创建 Pod…"},
	"no_evidence":   {En: "no %s evidence for this pod yet", Zh: "该 Pod 还没有 %s 证据"},
	"from_stage":    {En: "(from stage %d)", Zh: "（来自第 %d 阶段）"},
	"no_cluster":    {En: "no cluster connection", Zh: "未连接集群"},
	"no_events":     {En: "no events yet", Zh: "暂无事件"},
	"no_nodes":      {En: "no nodes yet", Zh: "暂无节点"},
	"picker":        {En: "Scenarios — enter to start, esc to go back", Zh: "场景 — 回车开始，esc 返回"},
	"summary":       {En: "Scenario finished", Zh: "场景结束"},
	"passed":        {En: "every expectation held", Zh: "所有预期均满足"},
	"failed":        {En: "failed: %s", Zh: "失败：%s"},
	"offer_next":    {En: "enter: next scenario (%s) · esc: back · r: replay · s: scenarios · q: quit", Zh: "回车：下一个场景（%s） · esc：返回 · r：重放 · s：场景列表 · q：退出"},
	"offer_last":    {En: "esc: back · r: replay · s: scenarios · q: quit", Zh: "esc：返回 · r：重放 · s：场景列表 · q：退出"},
	"help_title":    {En: "Keys", Zh: "按键"},
	"error":         {En: "error: %v", Zh: "错误：%v"},
	"too_small":     {En: "terminal too small (%d×%d); need 80×24", Zh: "终端太小（%d×%d），至少 80×24"},
	"made_times":    {En: "(made %d times; the last one:)", Zh: "（发了 %d 次，这是最后一次：）"},
	"step_requests": {En: "Step %d: its requests (last first)", Zh: "第 %d 步发出的请求（最新的在前）"},
	"no_action":     {En: "no action: waiting for the cluster", Zh: "没有动作：等待集群"},
	"held_total":    {En: "times without the gate's holds (%s held in all)", Zh: "时间不含闸门暂停（共暂停 %s）"},
	"attempts":      {En: "%d× no fit", Zh: "%d 次无合适节点"},
	"others_line":   {En: "other pods: %s", Zh: "其他 Pod：%s"},
	"steps":         {En: "Steps", Zh: "步骤"},
	"pod":           {En: "pod", Zh: "Pod"},
	"others":        {En: "+%d other pods", Zh: "另有 %d 个 Pod"},
	"narr_more":     {En: "%s: read all", Zh: "%s：看全文"},
	"narr_page":     {En: "↓%d more: pgdn", Zh: "下面还有 %d 行：pgdn"},
	"narr_page_up":  {En: "↑%d: pgup", Zh: "上面 %d 行：pgup"},
	"narr_close":    {En: "%s or esc to close", Zh: "%s 或 esc 关闭"},
	"close":         {En: "close", Zh: "关闭"},
	"narr_none":     {En: "No step has started yet. The scenario:", Zh: "还没有开始任何步骤。本场景："},
	// the step tab and the questions
	"step_tab":        {En: "Scenario step: action, result, transcript", Zh: "场景步骤：动作、结果、记录"},
	"step_running":    {En: "running…", Zh: "执行中…"},
	"step_then":       {En: "then %s: %s (running)", Zh: "接着是%s：%s（执行中）"},
	"step_then_held":  {En: "next %s: %s (held at its gate)", Zh: "下一步是%s：%s（在关卡处暂停）"},
	"step_held":       {En: "held at its gate, before its action", Zh: "在关卡处暂停，动作尚未执行"},
	"no_step":         {En: "no step has started yet", Zh: "还没有开始任何步骤"},
	"transcript":      {En: "what the action saw, line by line:", Zh: "动作所见，逐行记录："},
	"question":        {En: "Question:", Zh: "问题："},
	"question_title":  {En: "Question · step %d/%d", Zh: "问题 · 第 %d/%d 步"},
	"q_keys":          {En: "1–%d or ↑/↓ enter: answer and run the step · space: skip (run it without answering) · esc: hide (a shows it)", Zh: "1–%d 或 ↑/↓ 回车：回答并执行本步 · 空格：跳过（不回答直接执行） · esc：隐藏（a 重新显示）"},
	"q_hide":          {En: "hide", Zh: "隐藏"},
	"q_run":           {En: "the run's answer", Zh: "实际结果"},
	"q_yours":         {En: "yours", Zh: "你的回答"},
	"q_wait":          {En: "your answer: %d; the step runs, then the run's answer shows", Zh: "你的回答：%d；本步执行后显示实际结果"},
	"q_none_true":     {En: "none of the choices came true", Zh: "没有一个选项成立"},
	"q_unscored":      {En: "not asked at a gate (auto mode), not scored; the run's answer: %s", Zh: "未在关卡处提问（自动模式），不计分；实际结果：%s"},
	"q_skipped":       {En: "skipped; the run's answer: %s", Zh: "已跳过；实际结果：%s"},
	"q_right":         {En: "right: %s", Zh: "答对了：%s"},
	"q_wrong":         {En: "wrong: you answered %d; the run's answer: %s", Zh: "答错了：你选了 %d；实际结果：%s"},
	"q_score":         {En: "Questions: %d of %d right", Zh: "问题：%[2]d 题答对 %[1]d 题"},
	"q_score_skipped": {En: " (%d skipped)", Zh: "（跳过 %d 题）"},
	"q_score_shown":   {En: "%d more shown in auto mode, not scored", Zh: "另有 %d 题在自动模式下展示，不计分"},
	"held_question":   {En: "next: step %s — a question: 1–%d to answer, a to show it, space to skip", Zh: "下一步：%s — 有一个问题：按 1–%d 回答，a 显示，空格跳过"},
}

// tr returns uiText[key] in lang, or key itself when there is no such text.
func tr(lang, key string) string {
	t, ok := uiText[key]
	if !ok {
		return key
	}
	return t.In(lang)
}

// stageShort are the stage labels of the pipeline: short enough for
// four columns at 80 characters.
var stageShort = [9]flow.Text{
	{},
	{En: "admitted", Zh: "准入通过"},
	{En: "in etcd", Zh: "写入 etcd"},
	{En: "watch→sched", Zh: "通知调度器"},
	{En: "scheduled", Zh: "调度绑定"},
	{En: "bound in etcd", Zh: "绑定入库"},
	{En: "kubelet runs", Zh: "kubelet 启动"},
	{En: "status sent", Zh: "上报状态"},
	{En: "status in etcd", Zh: "状态入库"},
}

// heldAt says, for each gate point, where the pod stands while held there.
var heldAt = map[flow.Point]flow.Text{
	flow.PointBeforePersist:        {En: "admitted, not yet in etcd", Zh: "已通过准入，尚未写入 etcd"},
	flow.PointBeforeSchedulerWatch: {En: "in etcd, its ADDED event not yet sent to the scheduler", Zh: "已在 etcd 中，ADDED 事件尚未发给调度器"},
	flow.PointBeforeScheduling:     {En: "the scheduler has it, before filter and score", Zh: "调度器已收到，尚未过滤和打分"},
	flow.PointBeforeBinding:        {En: "node chosen, before POST binding", Zh: "已选定节点，尚未发送 binding"},
	flow.PointBeforeKubeletWatch:   {En: "bound in etcd, the event not yet sent to the kubelet", Zh: "绑定已写入 etcd，事件尚未发给 kubelet"},
	flow.PointBeforeContainers:     {En: "the kubelet has it, before pulling and creating containers", Zh: "kubelet 已收到，尚未拉取镜像、创建容器"},
	flow.PointBeforeStatusReport:   {En: "containers running, before PATCH pods/status", Zh: "容器已运行，尚未 PATCH pods/status"},
	flow.PointBeforeStatusPersist:  {En: "status patch admitted, not yet in etcd", Zh: "状态补丁已通过准入，尚未写入 etcd"},
}
