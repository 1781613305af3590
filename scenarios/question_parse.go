package scenarios

import (
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// questionKeys are a question's own fields; its fact's follow (see
// factKinds).
var questionKeys = []string{"ask", "choices", "fact"}

// A question has MinChoices to MaxChoices choices.
const (
	MinChoices = 2
	MaxChoices = 5
)

// questionDoc is a question as written: its own fields, and every field
// a fact takes (factKind.fields says which its fact may have).
type questionDoc struct {
	Ask       text        `yaml:"ask" load:"required"`
	Choices   []yaml.Node `yaml:"choices" load:"required"` // []choiceDoc, read after their count
	Fact      str         `yaml:"fact"`
	Index     *integer    `yaml:"index"`
	Pod       *objectName `yaml:"pod"`
	Namespace *objectName `yaml:"namespace"`
	Stage     *stageValue `yaml:"stage"`
	Than      *stageValue `yaml:"than"`
	// Deployment is the replicas fact's.
	Deployment *objectName `yaml:"deployment"`
	Job        *objectName `yaml:"job"`
	Figure     *str        `yaml:"figure"`
	Selector   *str        `yaml:"selector"`
	Moment     *str        `yaml:"moment"`
	Node       *objectName `yaml:"node"`
	// Kind is the count fact's; Client the scoreboard fact's; Router
	// the restfulRoute fact's.
	Kind   *str `yaml:"kind"`
	Client *str `yaml:"client"`
	Router *str `yaml:"router"`
}

// choiceDoc is one of a question's choices as written.
type choiceDoc struct {
	Text  text        `yaml:"text" load:"required"`
	Value strOrNumber `yaml:"value" load:"required"`
}

// question reads a step's question n: {ask, choices, fact, and the
// fact's fields}. Messages call n question.
func (l *loader) question(n *yaml.Node) (*Question, error) {
	q, err := readQuestion(n)
	return q, keyScope(n, "question").fileError(l.file, err)
}

// readQuestion is question, its errors not yet named. The fact is read
// first, as it says which other fields there may be.
func readQuestion(n *yaml.Node) (*Question, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errAt(n, "expected a mapping, got %s", describe(n))
	}
	kn := valueOf(n, "fact")
	if kn == nil {
		return nil, errAt(n, "missing field \"fact\" (one of %s)", joinComma(factKeys()))
	}
	var key str
	if err := decode(kn, &key); err != nil {
		return nil, err
	}
	kind, ok := factKindOf(string(key))
	if !ok {
		return nil, errAt(kn, "unknown fact %q (known: %s)", key, joinComma(factKeys()))
	}
	var d questionDoc
	if err := decodeWith(n, &d, slices.Concat(questionKeys, kind.fields)); err != nil {
		return nil, err
	}
	q := &Question{Fact: string(key), Ask: flow.Text(d.Ask)}
	var err error
	if q.Choices, err = choices(valueOf(n, "choices"), kind); err != nil {
		return nil, err
	}
	if q.fact, err = kind.parse(&d, n); err != nil {
		return nil, err
	}
	q.About = q.fact.about()
	return q, nil
}

// choices reads the list n of a question's choices: MinChoices to
// MaxChoices (counted before any is read), each a choiceDoc, the values
// distinct and each one the fact could have.
func choices(n *yaml.Node, kind factKind) ([]Choice, error) {
	if c := len(n.Content); c < MinChoices || c > MaxChoices {
		return nil, errAt(n, "%d choices: a question has %d to %d", c, MinChoices, MaxChoices)
	}
	var out []Choice
	for _, item := range n.Content {
		d, err := decodeAs[choiceDoc](item)
		if err != nil {
			return nil, err
		}
		c := Choice{Text: flow.Text(d.Text), Value: strings.TrimSpace(string(d.Value))}
		vn := valueOf(item, "value")
		if !kind.valid(c.Value) {
			return nil, errAt(vn, "%q can never be the fact %s (its values: %s)", c.Value, kind.key, kind.values)
		}
		for j, prev := range out {
			if prev.Value == c.Value {
				return nil, errAt(vn, "%q is the value of choices[%d] too (each choice needs its own)", c.Value, j)
			}
		}
		out = append(out, c)
	}
	return out, nil
}
