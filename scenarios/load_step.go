package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
)

// stepDoc is a step as written, but for its action: the loader reads
// that from the key of actionKinds the step has.
type stepDoc struct {
	ID        *slug     `yaml:"id"`
	Narration text      `yaml:"narration" load:"required"`
	Question  yaml.Node `yaml:"question"`
	As        *str      `yaml:"as"`
	Server    *integer  `yaml:"server"`
	Wait      *duration `yaml:"wait"`
	// Expect are the expectations, each a mapping of one key of
	// expectationKinds.
	Expect  []yaml.Node `yaml:"expect"`
	Timeout *duration   `yaml:"timeout"`
}

// stepKeys are a step's keys in the order messages list them: its own,
// with the actions' after server.
var stepKeys = func() []string {
	keys := docKeys[stepDoc]()
	i := slices.Index(keys, "server") + 1
	return slices.Concat(keys[:i], actionKeys(), keys[i:])
}()

// step reads the step n at index (from 1): its fields, its one action
// and its expectations. Messages call n "step <index>", and its fields
// by their keys.
func (l *loader) step(n *yaml.Node, index int) (*Step, error) {
	st, err := l.readStep(n, index)
	return st, scope{n, fmt.Sprintf("step %d", index), ""}.fileError(l.file, err)
}

// readStep is step, its errors not yet named.
func (l *loader) readStep(n *yaml.Node, index int) (*Step, error) {
	var d stepDoc
	if err := decodeWith(n, &d, stepKeys); err != nil {
		return nil, err
	}
	st := &Step{Index: index, Narration: flow.Text(d.Narration), As: DefaultUser, Timeout: DefaultTimeout, Line: n.Line, Col: n.Column}
	if d.ID != nil {
		st.ID = string(*d.ID)
	}
	var err error
	if d.Question.Kind != 0 {
		if st.Question, err = l.question(&d.Question); err != nil {
			return nil, err
		}
	}
	if d.As != nil {
		st.As = string(*d.As)
		if _, err := cluster.IdentityOf(st.As); err != nil {
			return nil, errAt(valueOf(n, "as"), "unknown user %q (use admin, student, system:kube-scheduler or system:node:<node>)", st.As)
		}
	}
	if d.Server != nil {
		if st.Server, err = stepServer(valueOf(n, "server"), *d.Server); err != nil {
			return nil, err
		}
	}
	if st.Action, err = l.stepAction(n); err != nil {
		return nil, err
	}
	if d.Wait != nil {
		st.Wait = time.Duration(*d.Wait)
	}
	if d.Timeout != nil {
		if st.Timeout = time.Duration(*d.Timeout); st.Timeout <= 0 {
			return nil, errAt(valueOf(n, "timeout"), "must be more than 0")
		}
	}
	for i := range d.Expect {
		e, err := l.expectation(&d.Expect[i])
		if err != nil {
			return nil, err
		}
		st.Expect = append(st.Expect, e)
	}
	return st, nil
}

// stepServer checks a step's server i, read from n: the API server
// (from 1) of a cluster of topology ha its action's requests go to.
func stepServer(n *yaml.Node, i integer) (int, error) {
	if i < 1 || i > integer(cluster.DefaultHAConfig.APIServers) {
		return 0, errAt(n, "%d: the API servers of a cluster of topology ha are 1 to %d", i, cluster.DefaultHAConfig.APIServers)
	}
	return int(i), nil
}

// stepAction reads the action of step n, nil if it has none: the value
// of its one key of actionKinds.
func (l *loader) stepAction(n *yaml.Node) (actionRunner, error) {
	var action actionRunner
	var first string // its key
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kind, ok := actionKindOf(k.Value)
		if !ok {
			continue
		}
		if first != "" {
			return nil, errAbout(n, k, "two actions, %s and %s (a step has at most one)", first, k.Value)
		}
		a, err := l.action(kind, v)
		if err != nil {
			return nil, err
		}
		action, first = a, k.Value
	}
	return action, nil
}

// action reads n, the value of kind's key, with kind's parser; messages
// call n by the key.
func (l *loader) action(kind actionKind, n *yaml.Node) (actionRunner, error) {
	a, err := kind.parse(l, kind.key, n)
	return a, keyScope(n, kind.key).fileError(l.file, err)
}

// expectation reads one item of a step's expect list: a mapping with one
// key, a registered expectation's, whose value its parser reads;
// messages call that value by the key.
func (l *loader) expectation(n *yaml.Node) (Expectation, error) {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return nil, l.errorAt(n, "expect: each item has exactly one key, one of %s", strings.Join(expectKeys(), ", "))
	}
	k, v := n.Content[0], n.Content[1]
	kind, ok := expectationKindOf(k.Value)
	if !ok {
		return nil, l.errorAt(k, "unknown expectation %q (known: %s)", k.Value, strings.Join(expectKeys(), ", "))
	}
	return l.expect(kind, v)
}

// expect reads n, the value of kind's key in an expect list, with kind's
// parser; messages call n by the key.
func (l *loader) expect(kind expectationKind, n *yaml.Node) (Expectation, error) {
	e, err := kind.parse(l, kind.key, n)
	return e, keyScope(n, kind.key).fileError(l.file, err)
}

// blockPos maps positions inside the text of scalar n (line and column
// from 1) to positions in the file.
func (l *loader) blockPos(n *yaml.Node) func(line, col int) (int, int) {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return func(int, int) (int, int) { return n.Line, n.Column }
	}
	indent := 0
	for i := n.Line; i < len(l.lines); i++ { // l.lines[n.Line] is the line after the indicator
		if t := strings.TrimLeft(l.lines[i], " "); t != "" {
			indent = len(l.lines[i]) - len(t)
			break
		}
	}
	return func(line, col int) (int, int) { return n.Line + line, indent + col }
}
