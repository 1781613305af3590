package main

import (
	"regexp"
	"sort"
	"strings"
)

// normalize returns text, one output as captured (see capture.render),
// with what varies from one run to the next replaced by placeholders in
// angle brackets, so that the outputs of two runs of one build are the
// same and those of two builds differ only where what users see changed.
// It is a pure function of text: -from re-normalizes old captures.
func normalize(text string) string {
	for _, r := range rules {
		text = r.apply(text)
	}
	return text
}

// A rule rewrites one kind of thing that varies from run to run. The
// rules run in the order of the table, each over the whole text.
type rule struct {
	name  string
	apply func(string) string
}

// rules are the normalization rules; each says what varies and why.
var rules = []rule{
	// Where a pod's stage blocks fall among the steps, and how the blocks
	// of several pods interleave, depends on timing at speed 0. First,
	// while the pods' names still tell them apart, every paragraph of a
	// stage is given its pod's heading (stories.go); "pod stories" below
	// then moves them after the steps.
	{"stage headings", headStages},

	// kubectl get --raw prints the server's JSON on one line: laid out one
	// value a line with sorted keys (the order of a JSON object's keys
	// means nothing to a client), so that the rules below and a diff see
	// each value.
	{"raw JSON", func(s string) string { return mapKubectlStdout(s, isRawGet, indentJSON) }},

	// The temporary directory of a run (os.MkdirTemp: a random number),
	// and the directories made in it the same way: the data dir of each
	// play, the member dirs of ha-control-plane.
	{"temp dirs", replace(`[^\s"'=]*/`+tempPrefix+`\d+`, `<tmp>`)},
	{"temp dirs within", replace(`<tmp>/([A-Za-z.-]+)-\d+\b`, `<tmp>/$1-<n>`)},

	// Ports on loopback: serve and play listen on a free port (--port 0),
	// and clients connect from ephemeral ports.
	{"loopback ports", replace(`\b(127\.0\.0\.\d+|localhost):\d{2,5}\b`, `$1:<port>`)},

	// UIDs are random (uuid v4), also within a name (a leader election
	// identity, kubesim-scheduler-2_<uid>) and where a line is cut short
	// within one ("…").
	{"uids", replace(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`, `<uid>`)},
	{"cut uids", replace(`\b[0-9a-f]{8}-[0-9a-f-]{0,27}…`, `<uid>…`)},
	{"cut uid fields", replace(`("uid":")[0-9a-f-]{1,35}…`, `$1<uid>…`)},

	// Times of day: creationTimestamp, lastTransitionTime, startTime
	// (RFC 3339) and kubectl describe's layout.
	{"rfc3339 times", replace(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`, `<time>`)},
	{"http dates", replace(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT`, `<time>`)},
	{"describe times", replace(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d [+-]\d{4}`, `<time>`)},
	// What is left of a time: a time of day alone (a taint eviction
	// "scheduled at 04:57:38").
	{"times of day", replace(`\b\d\d:\d\d:\d\d\b`, `<time>`)},

	// Elapsed times in a request's trace (the "+12µs" column, right
	// aligned) and the duration of each request of a step.
	{"trace offsets", replace(`(?m)^ *\+\d[\d.]*(ns|µs|ms|s)  `, `        +<dur>  `)},
	{"request durations", replace(`(, )\d[\d.]*(ns|µs|ms|s)\)`, `$1<dur>)`)},
	// Other measured durations: below a second (ns, µs, ms) or with a
	// fraction. The narration's and the API's own durations are whole
	// (300s, 3607s, 10s) or written with a space (100 ms) and stay.
	{"measured durations", replace(`\b\d+(\.\d+)?(ns|µs|ms)\b|\b\d+\.\d+s\b`, `<dur>`)},

	// RBAC names the first binding that allows a request, and visits the
	// ClusterRoleBindings in the order of its informer's cache, a map's:
	// a request that several of the default bindings allow (admin asking
	// for /readyz) is allowed by any of them.
	{"rbac default bindings", replace(`ClusterRoleBinding "(?:cluster-admin|system:discovery|system:public-info-viewer|system:basic-user)" of ClusterRole "[^"]+" to Group "[^"]+"`, `ClusterRoleBinding "<one of the default bindings>"`)},

	// The post-start hooks run each in a goroutine: the order in which
	// they finish, and the result listing them, vary.
	{"post-start hooks", inPlay(sortFinishedHooks)},
	{"post-start hook result", inPlay(replace(`(?m)^→ poststarthook/.*$`, `→ poststarthook/... finished (in the order they finished, cut at 200 characters)`))},

	// The goroutine net/http runs a request on: a counter of the process.
	{"goroutine ids", replace(`\bgoroutine \d+`, `goroutine <n>`)},

	// client-go picks a random timeout for each watch it opens (5 to 10
	// minutes), and sends it in the watch's URL.
	{"watch timeouts", replace(`timeout=\d+m\d+s&timeoutSeconds=\d+`, `timeout=<random>&timeoutSeconds=<random>`)},

	// Generated names (metadata.generateName) end in 5 random characters
	// of an alphabet without vowels: the pods of a ReplicaSet, a Service's
	// EndpointSlices, a pod's service account token volume.
	{"generated names", replace(`\b([a-z0-9][a-z0-9.-]*-)[bcdfghjklmnpqrstvwxz2456789]{5}\b`, `$1<suffix>`)},

	// The fake container runtime's container IDs are random.
	{"container ids", replace(`\bkubesim://[0-9a-f]{64}\b`, `kubesim://<container-id>`)},
	{"cut container ids", replace(`\bkubesim://[0-9a-f]{0,63}…`, `kubesim://<container-id>…`)},

	// A container that keeps failing restarts at once at speed 0 (no
	// back-off): how many times it has restarted by a given step is
	// chance.
	{"restart counts", inPlay(replace(`\brestartCount: \d+ → \d+`, `restartCount: <n> → <n>`))},
	{"restarts", inPlay(replace(`\b\d+ container restarts?\b`, `<n> container restarts`))},
	{"restarts zh", inPlay(replace(`容器共重启 \d+ 次`, `容器共重启 <n> 次`))},

	// In an HTTP/2 transcript, the server's frames on the connection
	// (stream 0: its SETTINGS, their ACK, WINDOW_UPDATE) and on different
	// streams come in any order: they are sorted by stream, stream 0's by
	// text, each stream's others in the order they came.
	{"http2 frame order", inPlay(sortFrames)},

	// An HTTP/2 HEADERS frame's length depends on HPACK: on the date it
	// carries and on what the connection's header table already holds.
	{"headers frame lengths", replace(`\blength=\d+ type=HEADERS\b`, `length=<n> type=HEADERS`)},

	// A changed field whose old and new values are both times (above)
	// shows no change any more; whether the second had turned between the
	// two writes is chance.
	{"time-only changes", replace(`(?m)^ *~ [^:]+: "<time>" → "<time>"\n`, ``)},
	// A list of changes is cut at 20; the time-only changes taken out
	// above may have pushed real ones past the cut, or made a list cut in
	// one run and not in the other: every list keeps its first 10
	// changes.
	{"change lists", trimChanges},

	// A controller's writes are listed in the order they completed, and
	// it sends several at once (a ReplicaSet's pod creates).
	{"controller writes", inPlay(sortWrites)},
	// A controller's write refused with 409 Conflict lost a race with
	// another writer, and the sync that follows it ("no new informer
	// event: a retry") is there because of it: both come as timing has it.
	{"controller retries", inPlay(dropRetries)},

	// A Service's cluster IP is picked at random from the service range
	// 10.96.0.0/12, as kube-apiserver does; 10.96.0.1, the kubernetes
	// Service's, is always the same.
	{"cluster ips", clusterIPs},

	// Which other keys etcd wrote between two revisions of an object, and
	// whether it wrote any, depends on how the controllers' writes fell
	// in time: the list is taken out.
	{"writes to other keys", otherKeys},

	// etcd revisions (resourceVersions) count every write of the whole
	// cluster, the controllers' too, and at speed 0 a step's read may
	// come before or after a controller's write.
	{"revisions", blankRevisions},

	// The size of what the API server sends or stores of an object
	// follows its content: the digits of its resourceVersion, whether a
	// read came before or after a concurrent write (a pod bound or not
	// yet). Sizes of 100 bytes and more, the length prefixes and chunk
	// sizes (hex) and the flow control increments that carry them, in
	// the scenarios; kubectl's outputs keep theirs.
	{"object sizes", inPlay(replace(`\b\d{3,} (bytes|字节)`, `<n> $1`))},
	{"length prefixes", inPlay(replace(`((?:length prefix|长度前缀) )[0-9a-f]{2} [0-9a-f]{2} [0-9a-f]{2} [0-9a-f]{2}\b`, `$1<hex>`))},
	{"chunk sizes", inPlay(replace(`chunk "[0-9a-f]+\\r\\n"`, `chunk "<hex>\r\n"`))},
	{"data frame lengths", inPlay(replace(`\blength=\d+ type=DATA\b`, `length=<n> type=DATA`))},
	{"window increments", inPlay(replace(`\bincrement=\d+`, `increment=<n>`))},

	// watchCompare's scoreboard measures a race between a writer and
	// three clients (measured.go).
	{"scoreboards", inPlay(blankScoreboard)},

	// A step's requests as the API server traced them: each distinct one
	// once, sorted (traces.go).
	{"step requests", inPlay(setOfTraces)},

	// etcd's members: which one leads is raft's random pick, their IDs
	// are random, their raft index and db size grow with time
	// (members.go).
	{"etcd members", inPlay(etcdMembers)},

	// Among nodes that tie on the highest score the scheduler draws one
	// at random, as kube-scheduler does: in a play where it drew, which
	// node each pod went to varies, so the nodes' names, their IPs and
	// their pods' IPs (a node hands them out in the order its pods come)
	// are blanked, and the nodes' lines of a scheduling attempt sorted.
	{"random nodes", inPlay(blankDrawnNodes)},

	// The pods' paragraphs are moved after the steps, each pod's as sets
	// by stage (stories.go).
	{"pod stories", podStories},

	// kubectl's tables: ages (AGE, LAST SEEN, an event's Age) are times
	// since something happened; rows whose names became equal above are
	// sorted (not a watch's, whose order is the order of the events);
	// then every table is laid out again, since a normalized cell may be
	// wider or narrower than the value it replaced.
	{"get tables", func(s string) string {
		return mapKubectlStdout(s, isTableGet, func(b string) string { return realignTable(b, true) })
	}},
	{"watch tables", func(s string) string {
		return mapKubectlStdout(s, isWatch, func(b string) string { return realignTable(b, false) })
	}},
	{"describe events", func(s string) string { return mapKubectlStdout(s, isDescribe, realignEvents) }},
}

// isRawGet, isTableGet, isWatch and isDescribe tell the kubectl command
// lines whose stdout a rule rewrites: get --raw; get or api-resources
// printing a table; get --watch; describe.
func isRawGet(cmd string) bool { return strings.HasPrefix(cmd, "kubectl get --raw ") }

func isTableGet(cmd string) bool {
	if strings.HasPrefix(cmd, "kubectl api-resources") {
		return true
	}
	return strings.HasPrefix(cmd, "kubectl get ") && !isRawGet(cmd) && !isWatch(cmd) && !strings.Contains(cmd, " -o yaml")
}

func isWatch(cmd string) bool {
	return strings.HasPrefix(cmd, "kubectl get ") && strings.Contains(cmd, " --watch")
}

func isDescribe(cmd string) bool { return strings.HasPrefix(cmd, "kubectl describe ") }

// serviceRange matches the IPv4 addresses of the service range
// 10.96.0.0/12.
var serviceRange = regexp.MustCompile(`\b10\.(?:9[6-9]|10[0-9]|11[01])\.\d{1,3}\.\d{1,3}\b`)

// clusterIPs replaces the cluster IPs of the service range but
// 10.96.0.1.
func clusterIPs(s string) string {
	return serviceRange.ReplaceAllStringFunc(s, func(ip string) string {
		if ip == "10.96.0.1" {
			return ip
		}
		return "<cluster-ip>"
	})
}

// replace is a rule that replaces each match of pattern by repl (with
// $1-style references).
func replace(pattern, repl string) func(string) string {
	re := regexp.MustCompile(pattern)
	return func(s string) string { return re.ReplaceAllString(s, repl) }
}

// otherKeysHead starts the list of writes to other keys between two
// revisions of an object (flow's "between" and "between_one"); its lines
// follow, indented deeper.
var otherKeysHead = regexp.MustCompile(`^( *)(revisions \d+ to \d+ \(\d+\) went to other keys:|revision \d+ went to another key:|revision \d+ 到 \d+（\d+ 个）属于其他键：|revision \d+ 属于另一个键：)$`)

// otherKeys takes out each list of writes to other keys.
func otherKeys(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for i := 0; i < len(lines); i++ {
		m := otherKeysHead.FindStringSubmatch(lines[i])
		if m == nil {
			out = append(out, lines[i])
			continue
		}
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], m[1]+"  ") {
			i++
		}
	}
	return strings.Join(out, "\n")
}

// revisionPatterns find the etcd revisions in a text: each group of
// digits of a match is one.
var revisionPatterns = []*regexp.Regexp{
	// After "resourceVersion" (resourceVersion 4, resourceVersion "121",
	// resourceVersion: "147", "resourceVersion":"1", resourceVersion=12,
	// Resource Version:  189, resourceVersions 111 to 160, resourceVersion
	// 99 → 103), any number is one.
	regexp.MustCompile(`(?i)\bresource ?versions?(?:[=:]|":)? *(?:是 |从 )?"?(\d+)\b(?:"? (?:to|到|→) "?(\d+)\b)?`),
	// After "revision" (revision 121, revisions 122 to 123, previous 109,
	// 上一个 109, 修订版本 121), a number of at least two digits: a
	// Deployment's revisions (1, 2, 3) are called so too, and a fresh
	// cluster has written far more than 9 keys before any scenario step.
	regexp.MustCompile(`(?i)(?:\b(?:revisions?|previous(?: revision)?|create revision|mod revision)|上一个(?: revision)?|修订版本)(?:[=:]|":)? *"?(\d{2,})\b(?: (?:to|到) (\d{2,})\b)?`),
	// too old resource version: 108 (119): the oldest the cache has.
	regexp.MustCompile(`too old resource version: \d+ \((\d+)\)`),
	// the slow watcher's buffer had no room for the change of revision 132
	regexp.MustCompile(`no room for (\d+)\b|(\d+) 放不下了`),
}

// blankRevisions replaces each revision by <rv>.
func blankRevisions(s string) string {
	type span struct{ start, end int }
	var spans []span
	for _, re := range revisionPatterns {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 {
					spans = append(spans, span{m[g], m[g+1]})
				}
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			continue // found by two patterns
		}
		b.WriteString(s[last:sp.start])
		b.WriteString("<rv>")
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// tieLine says the scheduler drew a node among several.
var tieLine = regexp.MustCompile(`(?m)^ *(?:a tie: \d+ nodes|平分：\d+ 个节点)`)

// nodeLine is a line of a scheduling attempt, one per node, once the
// node's name is blanked.
var nodeLine = regexp.MustCompile(`^ {4}[ *] node-<n> `)

// nodeName, nodeIP and podIP are a numbered node's name (node-2), its IP
// (192.168.0.12) and an IP of its pod range (10.244.2.7).
var (
	nodeName = regexp.MustCompile(`node-\d+\b`)
	nodeIP   = regexp.MustCompile(`\b192\.168\.0\.\d+\b`)
	podIP    = regexp.MustCompile(`\b10\.244\.\d+\.\d+\b`)
)

// blankDrawnNodes blanks the numbered nodes of s when s has a tie.
func blankDrawnNodes(s string) string {
	if !tieLine.MatchString(s) {
		return s
	}
	s = nodeName.ReplaceAllString(s, "node-<n>")
	s = nodeIP.ReplaceAllString(s, "192.168.0.<n>")
	s = podIP.ReplaceAllString(s, "10.244.<n>.<n>")
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && nodeLine.MatchString(lines[j]) {
			j++
		}
		sort.Strings(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}

// moreChanges ends a list of changes cut short.
var moreChanges = regexp.MustCompile(`^ *(?:… and \d+ more|… 另有 \d+ 处)$`)

// changesHead starts a list of changes ("changed since revision 5:").
var changesHead = regexp.MustCompile(`^( *)(?:changed since revision \S+:|相对 revision \S+ 的变化：)$`)

// keptChanges is how many changes a list keeps.
const keptChanges = 10

// trimChanges keeps the first keptChanges changes of each list of
// changes, and says "… (more)" where it cut one.
func trimChanges(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		m := changesHead.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		j, n := i+1, 0
		for ; j < len(lines) && strings.HasPrefix(lines[j], m[1]+"  "); j++ {
			if moreChanges.MatchString(lines[j]) {
				n = keptChanges + 1 // cut by the printer
				continue
			}
			if n++; n <= keptChanges {
				out = append(out, lines[j])
			}
		}
		if n > keptChanges {
			out = append(out, m[1]+"  … (more)")
		}
		i = j - 1
	}
	return strings.Join(out, "\n")
}

// writeLine is one write in a controller's list of them.
var writeLine = regexp.MustCompile(`^ +(?:POST|PUT|PATCH|DELETE) [a-z][a-z.]* `)

// sortWrites sorts each run of write lines.
func sortWrites(s string) string {
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && writeLine.MatchString(lines[j]) {
			j++
		}
		sort.Strings(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}

// Lines of a controller's retries: a write refused with 409, the sync
// of a key taken again without an informer event, and a "wrote:" whose
// writes were all taken out.
var (
	conflictWrite = regexp.MustCompile(`^ +(?:POST|PUT|PATCH|DELETE) [a-z][a-z.]* \S+ → 409\b`)
	retrySync     = regexp.MustCompile(`came off the workqueue "[^"]*" with no new informer event|从工作队列 "[^"]*" 中取出，没有新的 informer 事件`)
	wroteLine     = regexp.MustCompile(`^ +(?:wrote:|写入：)$`)
)

// dropRetries takes out the lines of controllers' retries.
func dropRetries(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if conflictWrite.MatchString(line) || retrySync.MatchString(line) {
			continue
		}
		if n := len(out); n > 0 && wroteLine.MatchString(out[n-1]) && indent(line) <= indent(out[n-1]) {
			out = out[:n-1] // its writes were all taken out
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// hookLine is a post-start hook's line in the startup trace.
var hookLine = regexp.MustCompile(`^ *\+<dur>  Run +poststarthook +(started|finished) +(\S+)$`)

// sortFinishedHooks moves, in each run of hook lines, the "finished"
// lines after the "started" ones, sorted by name; the "started" lines keep
// their order, which is the order the hooks were registered in.
func sortFinishedHooks(s string) string {
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		if !hookLine.MatchString(lines[i]) {
			i++
			continue
		}
		j := i
		var started, finished []string
		for ; j < len(lines) && hookLine.MatchString(lines[j]); j++ {
			if hookLine.FindStringSubmatch(lines[j])[1] == "started" {
				started = append(started, lines[j])
			} else {
				finished = append(finished, lines[j])
			}
		}
		sort.Strings(finished)
		copy(lines[i:j], append(started, finished...))
		i = j
	}
	return strings.Join(lines, "\n")
}

// inPlay applies f only to the capture of a scenario's play.
func inPlay(f func(string) string) func(string) string {
	return func(s string) string {
		if !strings.HasPrefix(s, "$ kubesim play ") {
			return s
		}
		return f(s)
	}
}
