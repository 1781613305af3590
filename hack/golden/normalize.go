package main

import (
	"regexp"
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

	// kubectl's tables are cut into cells while their columns still line
	// up with their headers; "get tables" below lays them out again once
	// the cells are normalized (tables.go).
	{"table cells", func(s string) string {
		s = mapKubectlStdout(s, func(cmd string) bool { return isTableGet(cmd) || isWatch(cmd) }, toCells)
		return mapKubectlStdout(s, isDescribe, eventsToCells)
	}},

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

	// Times: creationTimestamp, lastTransitionTime, startTime, HTTP dates
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
	// How long a standby scheduler took to take the Lease over, which
	// may come out whole (19s).
	{"lease takeover", replace(`holds it now, \S+ later`, `holds it now, <dur> later`)},

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
	// event: a retry") is there because of it; the garbage collector may
	// pass again over an object it orphaned: all come as timing has it.
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

	// kubectl's tables, cut into cells above, are laid out again: ages
	// (AGE, LAST SEEN, an event's Age) blanked, as times since something
	// happened; rows whose names became equal sorted (not a watch's,
	// whose order is the order of the events); each column as wide as
	// its widest normalized cell (tables.go).
	{"get tables", func(s string) string {
		return mapKubectlStdout(s, isTableGet, func(b string) string { return layOutTable(b, true) })
	}},
	{"watch tables", func(s string) string {
		return mapKubectlStdout(s, isWatch, func(b string) string { return layOutTable(b, false) })
	}},
	{"describe events", func(s string) string { return mapKubectlStdout(s, isDescribe, layOutEvents) }},
}

// replace is a rule that replaces each match of pattern by repl (with
// $1-style references).
func replace(pattern, repl string) func(string) string {
	re := regexp.MustCompile(pattern)
	return func(s string) string { return re.ReplaceAllString(s, repl) }
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
