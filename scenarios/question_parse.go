package scenarios

import (
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// The fields of a question (its fact's own follow, see factKinds) and of
// each of its choices.
var (
	questionKeys = []string{"ask", "choices", "fact"}
	choiceKeys   = []string{"text", "value"}
)

// A question has MinChoices to MaxChoices choices.
const (
	MinChoices = 2
	MaxChoices = 5
)

// question reads a step's question: {ask, choices, fact, and the fact's
// fields}. The fact is read first, as it says which other fields there
// may be.
func (l *loader) question(n *yaml.Node) (*Question, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.errAt(n, "question: expected a mapping, got %s", describe(n))
	}
	kn := mappingValue(n, "fact")
	if kn == nil {
		return nil, l.errAt(n, "question: missing field \"fact\" (one of %s)", joinComma(factKeys()))
	}
	key, err := l.str(kn, "question.fact")
	if err != nil {
		return nil, err
	}
	kind, ok := factKindOf(key)
	if !ok {
		return nil, l.errAt(kn, "question.fact: unknown fact %q (known: %s)", key, joinComma(factKeys()))
	}
	fields, _, err := l.fields(n, "question", append(slices.Clone(questionKeys), kind.fields...))
	if err != nil {
		return nil, err
	}
	q := &Question{Fact: key}
	f, ok := fields["ask"]
	if !ok {
		return nil, l.errAt(n, "question: missing field \"ask\"")
	}
	if q.Ask, err = l.text(f.val, "question.ask"); err != nil {
		return nil, err
	}
	f, ok = fields["choices"]
	if !ok {
		return nil, l.errAt(n, "question: missing field \"choices\"")
	}
	if q.Choices, err = l.choices(f.val, kind); err != nil {
		return nil, err
	}
	if q.fact, err = kind.parse(l, n, fields); err != nil {
		return nil, err
	}
	q.About = q.fact.about()
	return q, nil
}

// choices reads the list of a question's choices: MinChoices to
// MaxChoices, each {text, value}, the values distinct and each one the
// fact could have.
func (l *loader) choices(n *yaml.Node, kind factKind) ([]Choice, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, "question.choices: expected a list, got %s", describe(n))
	}
	if c := len(n.Content); c < MinChoices || c > MaxChoices {
		return nil, l.errAt(n, "question.choices: %d choices: a question has %d to %d", c, MinChoices, MaxChoices)
	}
	var out []Choice
	for _, cn := range n.Content {
		c, err := l.choice(cn, kind)
		if err != nil {
			return nil, err
		}
		for i, prev := range out {
			if prev.Value == c.Value {
				return nil, l.errAt(mappingValue(cn, "value"), "question.choices.value: %q is the value of choice %d too (each choice needs its own)", c.Value, i+1)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// choice reads one choice: {text: {en, zh}, value}.
func (l *loader) choice(n *yaml.Node, kind factKind) (Choice, error) {
	const what = "question.choices"
	fields, _, err := l.fields(n, what, choiceKeys)
	if err != nil {
		return Choice{}, err
	}
	var c Choice
	f, ok := fields["text"]
	if !ok {
		return c, l.errAt(n, "%s: missing field \"text\"", what)
	}
	if c.Text, err = l.text(f.val, what+".text"); err != nil {
		return c, err
	}
	f, ok = fields["value"]
	if !ok {
		return c, l.errAt(n, "%s: missing field \"value\"", what)
	}
	if c.Value, err = l.scalar(f.val, what+".value"); err != nil {
		return c, err
	}
	c.Value = strings.TrimSpace(c.Value)
	if !kind.valid(c.Value) {
		return c, l.errAt(f.val, "%s.value: %q can never be the fact %s (its values: %s)", what, c.Value, kind.key, kind.values)
	}
	return c, nil
}

// mappingValue returns the value of key in mapping n, nil if it has none.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
