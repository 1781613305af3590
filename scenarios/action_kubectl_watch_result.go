package scenarios

import (
	"net/url"
	"strconv"
	"strings"
)

// KubectlWatchEvidence is what a kubectlWatch step saw, besides its
// transcript: the step result's Evidence.
type KubectlWatchEvidence struct {
	// Client is the client that ran: "kubectl v1.32.4 (/usr/bin/kubectl)"
	// or "client-go (no kubectl on PATH)".
	Client string `json:"client"`
	// Kubectl says whether it was kubectl.
	Kubectl bool `json:"kubectl"`
	// ListURI and WatchURI are the path and query of the list and the
	// watch, as the client logged them; ListRV is the resourceVersion
	// the list answered with.
	ListURI  string `json:"listURI"`
	WatchURI string `json:"watchURI"`
	ListRV   string `json:"listRV"`
	// ListAuditID and WatchAuditID are the Audit-Id headers of their
	// answers, which name the API server's traces of them.
	ListAuditID  string `json:"listAuditID"`
	WatchAuditID string `json:"watchAuditID"`
	// Lines are the lines the client printed; ListRows of the rows (the
	// first after the heading) came from the list, the others from the
	// watch's events.
	Lines    []string `json:"lines"`
	ListRows int      `json:"listRows"`
}

func init() {
	registerTranscriptZh(map[string]string{
		"-- the client: %s":                          "-- 客户端：%s",
		"> %s %s  (discovery)":                       "> %s %s（发现）",
		"< %s  Audit-Id: %s":                         "< %s  Audit-Id：%s",
		"   the list answered at resourceVersion %s": "   list 的响应在 resourceVersion %s",
		"   Content-Type %s, no Content-Length: the response stays open, one event after another": "   Content-Type %s，没有 Content-Length：响应一直开着，一个事件接一个事件",
		"-- the watch is open: %s → %d": "-- watch 已经开着：%s → %d",
		"   (rows from the list: %d, which the client itself prints as ADDED, as kubectl does with --output-watch-events; the rows after them are the watch's events)": "   （来自 list 的行：%d 行，由客户端自己标成 ADDED 打印，kubectl 加上 --output-watch-events 时就是这样；其后的行才是 watch 的事件）",
		"-- %s shows %s: the client stops (kubectl: interrupted, as Ctrl-C), which closes the watch":                                                                   "-- %s 显示 %s：客户端停止（kubectl：被中断，如同按下 Ctrl-C），watch 随之关闭",
	})
}

// result builds the step's result from what the client logged and
// printed: its transcript, the watch's event types and start, the
// evidence, and, for kubectl, the Audit-Ids of its list and watch, so
// that the API server's traces of them are the step's requests.
func (kw *kubectlWatchRun) result(p *player) StepResult {
	reqs, lines := kw.w.log().snapshot()
	_, isKubectl := kw.w.(*kubectlWatcher)
	ev := &KubectlWatchEvidence{Client: kw.w.client(), Kubectl: isKubectl, Lines: lines, ListRows: kw.listed}
	res := StepResult{Evidence: ev, Message: kw.created.Message}
	logf := func(format string, args ...any) { addTranscript(&res, format, args...) }
	logf("-- the client: %s", ev.Client)
	for _, r := range reqs {
		if !r.isPods() {
			logf("> %s %s  (discovery)", r.Method, r.URL)
			continue
		}
		logf("> %s %s", r.Method, r.URL)
		logf(">   Accept: %s", r.Accept)
		logf(">   User-Agent: %s", r.UserAgent)
		if r.Status == "" {
			continue
		}
		logf("< %s  Audit-Id: %s", r.Status, r.AuditID)
		if isKubectl {
			p.noteRequest(r.AuditID)
		}
		kw.noteRequest(&res, ev, r, logf)
	}
	if kw.created.Status != 0 {
		logf("-- the watch is open: %s → %d", kw.a.Create, kw.created.Status)
	}
	kw.noteLines(&res, ev, logf)
	return res
}

// noteRequest puts the list's or the watch's figures into the result and
// the evidence.
func (kw *kubectlWatchRun) noteRequest(res *StepResult, ev *KubectlWatchEvidence, r clientRequest, logf func(string, ...any)) {
	if !r.isWatch() {
		ev.ListURI, ev.ListRV, ev.ListAuditID = r.pathQuery(), r.ListRV, r.AuditID
		logf("   the list answered at resourceVersion %s", r.ListRV)
		return
	}
	ev.WatchURI, ev.WatchAuditID = r.pathQuery(), r.AuditID
	if u, err := url.Parse(r.URL); err == nil {
		res.WatchFrom = u.Query().Get("resourceVersion")
	}
	code, _, _ := strings.Cut(r.Status, " ")
	res.Status, _ = strconv.Atoi(code)
	logf("   Content-Type %s, no Content-Length: the response stays open, one event after another", r.ContentType)
}

// noteLines puts the printed lines into the transcript, and the event
// types of the rows after the list's into the result.
func (kw *kubectlWatchRun) noteLines(res *StepResult, ev *KubectlWatchEvidence, logf func(string, ...any)) {
	rows := 0
	for _, l := range ev.Lines {
		logf("| %s", l)
		f := strings.Fields(l)
		if len(f) == 0 || f[0] == "EVENT" {
			continue
		}
		if rows++; rows > kw.listed {
			res.Watch = append(res.Watch, f[0])
		}
	}
	if kw.listed > 0 {
		logf("   (rows from the list: %d, which the client itself prints as ADDED, as kubectl does with --output-watch-events; the rows after them are the watch's events)", kw.listed)
	}
	if !kw.reached {
		return
	}
	logf("-- %s shows %s: the client stops (kubectl: interrupted, as Ctrl-C), which closes the watch", kw.a.podName(), kw.a.Until)
}
