package flow

import "fmt"

// Stage is one of the eight steps from "kubectl create" to a running pod.
// The zero Stage means an event that belongs to no stage (for example the
// trace of an unrelated request).
type Stage int

// The eight stages, in order.
const (
	StageAdmitted          Stage = iota + 1 // client → apiserver: authn, authz, admission
	StagePersisted                          // apiserver → etcd: the create transaction
	StageSchedulerNotified                  // watch: ADDED reaches the scheduler
	StageScheduled                          // scheduler: filter, score, bind
	StageBindingPersisted                   // apiserver → etcd: spec.nodeName
	StageKubeletNotified                    // watch → kubelet → runtime: containers created
	StageStatusReported                     // kubelet → apiserver: PATCH pods/status
	StageStatusPersisted                    // apiserver → etcd: phase Running
)

// StageInfo describes a stage for people.
type StageInfo struct {
	Stage   Stage
	Name    string // short, for code and JSON: "admitted"
	TitleEN string
	TitleZH string
}

// Stages lists the eight stages in order.
var Stages = []StageInfo{
	{StageAdmitted, "admitted", "Request admitted", "请求通过认证、授权与准入"},
	{StagePersisted, "persisted", "Pod stored in etcd", "Pod 写入 etcd"},
	{StageSchedulerNotified, "scheduler-notified", "Scheduler notified by watch", "调度器经 Watch 收到通知"},
	{StageScheduled, "scheduled", "Node chosen and bound", "调度器选定节点并绑定"},
	{StageBindingPersisted, "binding-persisted", "Binding stored in etcd", "绑定结果写入 etcd"},
	{StageKubeletNotified, "kubelet-notified", "Kubelet creates the containers", "kubelet 创建容器"},
	{StageStatusReported, "status-reported", "Kubelet reports status", "kubelet 上报状态"},
	{StageStatusPersisted, "status-persisted", "Status stored in etcd", "状态写入 etcd"},
}

// Info returns the description of s.
func (s Stage) Info() (StageInfo, bool) {
	if s < StageAdmitted || s > StageStatusPersisted {
		return StageInfo{}, false
	}
	return Stages[s-1], true
}

func (s Stage) String() string {
	if i, ok := s.Info(); ok {
		return i.Name
	}
	if s == 0 {
		return "none"
	}
	return fmt.Sprintf("stage(%d)", int(s))
}
