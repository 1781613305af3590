package scenarios

import (
	"context"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// A question's right answer is a fact of the run: after the step's action
// and expectations, the runner looks at the fact the question names and
// the choice whose value equals it is the answer. Each fact kind is
// registered below, one line per key, with the fields it takes in the
// question and the values it can have; facts_result.go has the facts of
// the step's result, facts_pod.go those of a pod.

// fact is one fact a question may name, with its fields read.
type fact interface {
	// about says what the fact is, as a noun phrase in both languages:
	// "node of web".
	about() flow.Text
	// look looks once at the fact in this run: its value, or ok false
	// with value saying what was seen instead. changed, if not nil, is
	// closed when new flow events arrive, and the runner looks again
	// until the step's timeout; nil means that looking again would not
	// help. ctx bounds one look. look is called from Play's goroutine.
	look(ctx context.Context, p *player, res *StepResult) (value string, ok bool, changed <-chan struct{})
}

// resultFact is a fact about the step's result that is what the step
// checks of a failed request (its status): with one, an API error of the
// action that came with an HTTP status is the step's result, as with a
// failedRequestReader expectation.
type resultFact interface {
	fact
	readsFailedRequest()
}

// factKind is one value a question's fact field may have.
type factKind struct {
	// key is the fact's name ("node").
	key string
	// fields are the fact's own fields in the question ("pod").
	fields []string
	// parse makes the fact of the question d, read from n (of its fact
	// fields, d has only those of fields). Its errors are at nodes of n,
	// which messages call question (see scope).
	parse func(d *questionDoc, n *yaml.Node) (fact, error)
	// values says, for messages, which values the fact can have; valid
	// reports whether v is one of them (a choice with another value
	// could never be right).
	values string
	valid  func(v string) bool
}

// factKinds are the facts a question may name, in the order messages
// (and docs/scenarios.md's table of facts) list them.
var factKinds = []factKind{
	{"status", nil, parseStatusFact, "an HTTP status code (201, 409)", validStatusCode},
	{"watchEvent", []string{"index"}, parseWatchEventFact, "a watch event type (" + joinComma(watchEventValues) + ")", oneOfFunc(watchEventValues)},
	{"watchRV", nil, parseWatchRVFact, joinComma(comparisonValues), oneOfFunc(comparisonValues)},
	{"watchFrom", nil, parseWatchFromFact, joinComma(watchFromValues), oneOfFunc(watchFromValues)},
	{"node", []string{"pod", "namespace"}, parseNodeFact, "a node name, or none", validNodeValue},
	{"component", []string{"pod", "namespace", "stage"}, parseComponentFact, joinComma(componentValues), oneOfFunc(componentValues)},
	{"stageRV", []string{"pod", "namespace", "stage", "than"}, parseStageRVFact, joinComma(comparisonValues), oneOfFunc(comparisonValues)},
	{"replicas", []string{"deployment", "namespace"}, parseReplicasFact, "a number of replicas (0, 5)", validReplicas},
	{"job", []string{"job", "namespace", "figure"}, parseJobFact, "a count (0, 1, 2...)", validCount},
	{"firstPod", []string{"selector", "namespace", "moment"}, parseFirstPodFact, "a pod name", validPodValue},
	{"momentBy", []string{"selector", "namespace", "moment", "node"}, parseMomentByFact, "a user name (system:kube-scheduler)", validUserValue},
	{"podPhase", []string{"pod", "namespace"}, parsePodPhaseFact, joinComma(phaseValues), oneOfFunc(phaseValues)},
	{"count", []string{"kind", "selector", "namespace"}, parseCountFact, "a count (0, 1, 2...)", validCount},
	{"scoreboard", []string{"client", "figure"}, parseScoreboardFact, "a count (0, 1, 2...)", validCount},
	{"slowWatchMissed", nil, parseSlowWatchMissedFact, "a count (0, 1, 2...)", validCount},
	{"restfulRoute", []string{"router"}, parseRestfulRouteFact, "a route (GET /api/v1/pods) or a status code (404)", validRouteValue},
}

// factKindOf returns the registered fact kind of key.
func factKindOf(key string) (factKind, bool) {
	for _, k := range factKinds {
		if k.key == key {
			return k, true
		}
	}
	return factKind{}, false
}

// factKeys lists the facts' keys in registry order, as messages do.
func factKeys() []string {
	keys := make([]string, len(factKinds))
	for i, k := range factKinds {
		keys[i] = k.key
	}
	return keys
}
