package flow

import (
	"fmt"
	"strconv"
)

// briefWrites is how many writes of a controller action a Brief layout
// lists; the others are counted.
const briefWrites = 5

// controllerWords are the words a Layout writes around a controller's
// action, by key, in both languages; many are fmt formats.
var controllerWords = map[string]Text{
	"created_by":       {En: "created by %s, syncing %s %s", Zh: "由 %s 创建：它在同步 %s %s"},
	"synced":           {En: "%s synced %s %s", Zh: "%s 同步了 %s %s"},
	"synced_key":       {En: "%s synced the key %q", Zh: "%s 同步了键 %q"},
	"no_event":         {En: "no informer event recorded for the key %q", Zh: "没有记录到把键 %q 放进队列的 informer 事件"},
	"upstream_created": {En: "created by %s", Zh: "由 %s 创建"},
	"upstream_wrote":   {En: "a write by %s", Zh: "%s 的一次写入"},
	"upstream_code": {En: "%s is upstream's own code (k8s.io/kubernetes pkg/controller), which kubesim runs as it is: its requests are seen, not the informer event, workqueue key or decision behind them",
		Zh: "%s 是上游自己的代码（k8s.io/kubernetes pkg/controller），kubesim 原样运行它：能看到它发出的请求，看不到背后的 informer 事件、工作队列键和决定"},
	"trigger": {En: "why now: the informer event %s %s %s%s queued the key %q on the workqueue %q",
		Zh: "起因：informer 事件 %s %s %s%s，把键 %q 放进了工作队列 %q"},
	"trigger_rv":   {En: " (resourceVersion %s)", Zh: "（resourceVersion %s）"},
	"trigger_text": {En: "why now: %s queued the key %q", Zh: "起因：%s 把键 %q 放进了工作队列"},
	"no_trigger": {En: "the key %q came off the workqueue %q with no new informer event (a retry, or a re-queue after a delay)",
		Zh: "键 %q 从工作队列 %q 中取出，没有新的 informer 事件（重试，或延时后重新入队）"},
	"wrote":      {En: "wrote:", Zh: "写入："},
	"this_one":   {En: "← this one", Zh: "← 就是它"},
	"more":       {En: "… and %d more", Zh: "… 另有 %d 个"},
	"owner_ref":  {En: "ownerReference: %s %s uid %s  controller=%t blockOwnerDeletion=%t", Zh: "ownerReference（属主引用）：%s %s uid %s  controller=%t blockOwnerDeletion=%t"},
	"v2_too_few": {En: "upstream's replicaset-controller logs this decision at verbosity 2: \"Too few replicas\" need=%d creating=%d", Zh: "上游的 replicaset-controller 以日志级别 2 记录这个决定：\"Too few replicas\" need=%d creating=%d"},
	"v2_too_many": {En: "upstream's replicaset-controller logs this decision at verbosity 2: \"Too many replicas\" need=%d deleting=%d",
		Zh: "上游的 replicaset-controller 以日志级别 2 记录这个决定：\"Too many replicas\" need=%d deleting=%d"},
	// the decisions
	DecisionTooFewReplicas:  {En: "wants %d replicas, has %d: too few, creating %d", Zh: "期望 %d 个副本，现有 %d 个：太少，创建 %d 个"},
	DecisionTooManyReplicas: {En: "wants %d replicas, has %d: too many, deleting %d", Zh: "期望 %d 个副本，现有 %d 个：太多，删除 %d 个"},
	DecisionNewReplicaSet: {En: "no ReplicaSet has the current pod template: created ReplicaSet %s, replicas: %d",
		Zh: "没有哪个 ReplicaSet 带有当前的 Pod 模板：创建 ReplicaSet %s，副本数 %d"},
	DecisionScaleUp:   {En: "scaled up ReplicaSet %s from %d to %d", Zh: "把 ReplicaSet %s 从 %d 扩容到 %d"},
	DecisionScaleDown: {En: "scaled down ReplicaSet %s from %d to %d", Zh: "把 ReplicaSet %s 从 %d 缩容到 %d"},
	DecisionDeleteOldReplicaSet: {En: "more old ReplicaSets than revisionHistoryLimit %d: deleting %s, which has no replicas left",
		Zh: "旧 ReplicaSet 多于 revisionHistoryLimit（%d）：删除已没有副本的 %s"},
	DecisionOwnerGone: {En: "none of its owners is left (%s): deleting it, propagationPolicy %s",
		Zh: "它的属主都已不在（%s）：删除它，propagationPolicy %s"},
	DecisionOwnerDeletingDependents: {En: "its owner (%s) is deleting its dependents in the foreground, and it has dependents of its own: deleting it, propagationPolicy %s",
		Zh: "它的属主（%s）正在前台删除依赖对象，而它自己也有依赖对象：删除它，propagationPolicy %s"},
	DecisionDependentsGone: {En: "no dependent blocks its deletion any more: removing the %s finalizer",
		Zh: "已没有依赖对象阻止删除它：移除 %s finalizer"},
	DecisionEndpointsChanged: {En: "Endpoints of Service %s: %d addresses, %d of them ready", Zh: "Service %s 的 Endpoints：%d 个地址，其中 %d 个就绪"},
	DecisionEndpointSlicesChanged: {En: "EndpointSlices of Service %s: %d endpoints, %d of them ready; %d slices written",
		Zh: "Service %s 的 EndpointSlice：%d 个端点，其中 %d 个就绪；写了 %d 个 slice"},
	DecisionOrphan: {En: "deleted with the %s finalizer: removing its ownerReference from %d dependents, then the finalizer",
		Zh: "以 %s finalizer 删除：先从 %d 个依赖对象上去掉指向它的 ownerReference，再移除这个 finalizer"},
}

// informerVerbs are the informer event verbs in both languages.
var informerVerbs = map[string]Text{
	"add":    {En: "add", Zh: "新增"},
	"update": {En: "update", Zh: "更新"},
	"delete": {En: "delete", Zh: "删除"},
}

// cprintf formats controllerWords[key], in l's language, with args.
func (l Layout) cprintf(key string, args ...any) string {
	return fmt.Sprintf(controllerWords[key].In(l.Lang), args...)
}

// controller lays out a controller's action: who synced what (or, for
// an object it created, who created it), the informer event that queued
// the key, the decisions with their figures, the writes with their
// status codes (the object's own marked), and the ownerReference its
// creations carry. Brief lists a few writes and counts the others.
func (l Layout) controller(ev Event, _ Context) []Line {
	a := ev.Controller
	head := l.cprintf("synced", a.Controller, a.Object.Kind, nsName(a.Object.Namespace, a.Object.Name))
	if a.Object.Kind == "" {
		head = l.cprintf("synced_key", a.Controller, a.Key)
	}
	if a.Created {
		head = l.cprintf("created_by", a.Controller, a.Object.Kind, nsName(a.Object.Namespace, a.Object.Name))
	}
	why := l.triggerLine(a)
	if a.Upstream {
		head, why = l.cprintf("upstream_wrote", a.Controller), l.cprintf("upstream_code", a.Controller)
		if a.Created {
			head = l.cprintf("upstream_created", a.Controller)
		}
	}
	out := []Line{line(RoleHeading, 2, head), line(RoleField, 4, why)}
	for _, d := range a.Decisions {
		out = append(out, line(RoleField, 4, l.decision(d)))
	}
	if a.DecisionText != "" {
		out = append(out, line(RoleField, 4, a.DecisionText))
	}
	out = append(out, l.controllerWrites(ev, a)...)
	if o := a.Owner; o != nil && a.Created {
		out = append(out, line(RoleField, 4, l.cprintf("owner_ref", o.Kind, o.Name, o.UID, o.Controller, o.BlockOwnerDeletion)))
	}
	if a.Created {
		out = append(out, l.upstreamLog(a)...)
	}
	return out
}

// triggerLine says why the key was synced now.
func (l Layout) triggerLine(a *ControllerAction) string {
	switch t := a.Trigger; {
	case t != nil:
		rv := ""
		if t.ResourceVersion != "" {
			rv = l.cprintf("trigger_rv", t.ResourceVersion)
		}
		return l.cprintf("trigger", l.translated(informerVerbs, t.Verb), t.Object.Kind, nsName(t.Object.Namespace, t.Object.Name), rv, a.Key, a.Queue)
	case a.TriggerText != "":
		return l.cprintf("trigger_text", a.TriggerText, a.Key)
	case a.Queue == "":
		return l.cprintf("no_event", a.Key)
	}
	return l.cprintf("no_trigger", a.Key, a.Queue)
}

// decision says one decision with its figures.
func (l Layout) decision(d ControllerDecision) string {
	switch d.Reason {
	case DecisionTooFewReplicas, DecisionTooManyReplicas:
		return l.cprintf(d.Reason, d.Want, d.Have, d.Count)
	case DecisionNewReplicaSet:
		return l.cprintf(d.Reason, d.Target, d.To)
	case DecisionScaleUp, DecisionScaleDown:
		return l.cprintf(d.Reason, d.Target, d.From, d.To)
	case DecisionDeleteOldReplicaSet:
		return l.cprintf(d.Reason, d.Want, d.Target)
	case DecisionOwnerGone, DecisionOwnerDeletingDependents:
		return l.cprintf(d.Reason, d.Target, d.Policy)
	case DecisionDependentsGone:
		return l.cprintf(d.Reason, d.Target)
	case DecisionOrphan:
		return l.cprintf(d.Reason, d.Target, d.Count)
	case DecisionEndpointsChanged:
		return l.cprintf(d.Reason, d.Target, d.Want, d.Have)
	case DecisionEndpointSlicesChanged:
		return l.cprintf(d.Reason, d.Target, d.Want, d.Have, d.Count)
	}
	return d.Reason + " " + d.Target
}

// controllerWrites lists the action's writes under "wrote:", the event's
// own object marked; Brief lists briefWrites, keeping the marked one.
func (l Layout) controllerWrites(ev Event, a *ControllerAction) []Line {
	n := len(a.Writes) + len(a.WriteLines)
	if n == 0 {
		return nil
	}
	out := []Line{field(l.cprintf("wrote"))}
	shown := 0
	for _, w := range a.Writes {
		mine := a.Created && w.UID != "" && w.UID == ev.Object.UID
		if l.Form == Brief && shown >= briefWrites && !mine {
			continue
		}
		text := "  " + writeLine(w)
		if mine {
			text += "  " + l.cprintf("this_one")
		}
		role := RoleField
		if w.Code == 0 || w.Code >= 400 {
			role = RoleFailed
		}
		out = append(out, line(role, 4, text))
		shown++
	}
	for _, s := range a.WriteLines {
		if l.Form == Brief && shown >= briefWrites {
			break
		}
		out = append(out, line(RoleField, 4, "  "+s))
		shown++
	}
	if shown < n {
		out = append(out, field("  "+l.cprintf("more", n-shown)))
	}
	return out
}

// writeLine is one write: "POST pods default/web-5d9c7c8f4b-x7k2p → 201".
func writeLine(w ControllerWrite) string {
	res := w.Resource
	if w.Subresource != "" {
		res += "/" + w.Subresource
	}
	result := strconv.Itoa(w.Code)
	if w.Error != "" {
		result = w.Error
	}
	return fmt.Sprintf("%s %s %s → %s", w.Method, res, nsName(w.Namespace, w.Name), result)
}

// upstreamLog notes how upstream's replicaset controller logs the
// decision that created the object.
func (l Layout) upstreamLog(a *ControllerAction) []Line {
	for _, d := range a.Decisions {
		switch d.Reason {
		case DecisionTooFewReplicas:
			return []Line{line(RoleNote, 4, l.cprintf("v2_too_few", d.Want, d.Count))}
		case DecisionTooManyReplicas:
			return []Line{line(RoleNote, 4, l.cprintf("v2_too_many", d.Want, d.Count))}
		}
	}
	return nil
}

// nsName is namespace/name, or name alone.
func nsName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
