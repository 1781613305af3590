package kubelet

import (
	"strings"
	"unicode"
)

// This file reads the script of "sh -c <script>": kubesim's tiny shell
// knows lists of simple commands joined by ";", newlines, "&&" and "||",
// words in single or double quotes or with backslashes, comments, and
// $NAME / ${NAME} of the container's environment. Any other construct
// (pipes, "&", redirections other than 2>&1, subshells, $(...), `...`,
// $?) ends the list with an unsupported command: the container runs it
// as a program kubesim does not simulate.

// shellCommand is one simple command of a script.
type shellCommand struct {
	// op joins it to the command before: "" (;, newline, or first),
	// "&&" or "||".
	op    string
	words []string
	// unsupported, if set, is a construct of the script kubesim's shell
	// does not read: running this command ends in it.
	unsupported string
}

// syntaxError is sh's message for a script it cannot read.
type syntaxError string

func (e syntaxError) Error() string { return string(e) }

// shellParser reads one script.
type shellParser struct {
	in   []rune
	pos  int
	env  func(string) string
	cmds []shellCommand
	cur  shellCommand
	word strings.Builder
	// inWord: a word has begun (even an empty one, as '').
	inWord bool
}

// parseScript splits script into its simple commands, expanding
// variables with env. A script sh would reject (an unterminated quote)
// gives the error sh prints.
func parseScript(script string, env func(string) string) ([]shellCommand, error) {
	p := &shellParser{in: []rune(script), env: env}
	for p.pos < len(p.in) {
		if stop, err := p.next(); err != nil {
			return nil, err
		} else if stop != "" {
			p.endWord()
			p.cur.unsupported = stop
			p.cmds = append(p.cmds, p.cur)
			return p.cmds, nil
		}
	}
	p.endCommand("")
	return p.cmds, nil
}

// next reads one token; it returns the construct it does not support,
// if it met one.
func (p *shellParser) next() (string, error) {
	r := p.in[p.pos]
	p.pos++
	switch {
	case r == ' ' || r == '\t':
		p.endWord()
	case r == '\n' || r == ';':
		p.endCommand("")
	case r == '#' && !p.inWord:
		for p.pos < len(p.in) && p.in[p.pos] != '\n' {
			p.pos++
		}
	case r == '&' || r == '|':
		if p.peek() == r {
			p.pos++
			p.endCommand(string([]rune{r, r}))
			return "", nil
		}
		if r == '|' {
			return "a pipe (|)", nil
		}
		return "a background job (&)", nil
	case r == '\'':
		return "", p.singleQuoted()
	case r == '"':
		return p.doubleQuoted()
	case r == '\\':
		if p.pos < len(p.in) {
			if c := p.in[p.pos]; c != '\n' {
				p.add(c)
			}
			p.pos++
		}
	case r == '$':
		return p.expand()
	case r == '`':
		return "command substitution (`...`)", nil
	case r == '>' || r == '<':
		return p.redirect(r)
	case r == '(' || r == ')' || (r == '{' || r == '}') && !p.inWord:
		return "a subshell or group ( ) { }", nil
	default:
		p.add(r)
	}
	return "", nil
}

func (p *shellParser) peek() rune {
	if p.pos < len(p.in) {
		return p.in[p.pos]
	}
	return 0
}

func (p *shellParser) add(r rune) {
	p.word.WriteRune(r)
	p.inWord = true
}

func (p *shellParser) endWord() {
	if p.inWord {
		p.cur.words = append(p.cur.words, p.word.String())
	}
	p.word.Reset()
	p.inWord = false
}

// endCommand ends the command under way; op joins the next one to it.
func (p *shellParser) endCommand(op string) {
	p.endWord()
	if len(p.cur.words) > 0 {
		p.cmds = append(p.cmds, p.cur)
	}
	p.cur = shellCommand{op: op}
}

func (p *shellParser) singleQuoted() error {
	p.inWord = true
	for p.pos < len(p.in) {
		r := p.in[p.pos]
		p.pos++
		if r == '\'' {
			return nil
		}
		p.word.WriteRune(r)
	}
	return syntaxError("sh: syntax error: unterminated quoted string")
}

func (p *shellParser) doubleQuoted() (string, error) {
	p.inWord = true
	for p.pos < len(p.in) {
		r := p.in[p.pos]
		p.pos++
		switch r {
		case '"':
			return "", nil
		case '\\':
			if c := p.peek(); c == '"' || c == '\\' || c == '$' || c == '`' {
				p.pos++
				p.word.WriteRune(c)
			} else if c == '\n' {
				p.pos++
			} else {
				p.word.WriteRune(r)
			}
		case '$':
			if stop, _ := p.expand(); stop != "" {
				return stop, nil
			}
		case '`':
			return "command substitution (`...`)", nil
		default:
			p.word.WriteRune(r)
		}
	}
	return "", syntaxError("sh: syntax error: unterminated quoted string")
}

// expand reads $NAME or ${NAME} after the '$'.
func (p *shellParser) expand() (string, error) {
	name := ""
	switch c := p.peek(); {
	case c == '{':
		end := strings.IndexRune(string(p.in[p.pos:]), '}')
		if end < 0 {
			return "", syntaxError("sh: syntax error: bad substitution")
		}
		name = string(p.in[p.pos+1 : p.pos+end])
		p.pos += end + 1
		if !isName(name) {
			return "parameter expansion ${" + name + "}", nil
		}
	case c == '_' || unicode.IsLetter(c):
		start := p.pos
		for p.pos < len(p.in) && (p.in[p.pos] == '_' || unicode.IsLetter(p.in[p.pos]) || unicode.IsDigit(p.in[p.pos])) {
			p.pos++
		}
		name = string(p.in[start:p.pos])
	case c == '(':
		return "command substitution $(...)", nil
	case c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '"':
		p.add('$')
		return "", nil
	default:
		return "the special parameter $" + string(c), nil
	}
	p.inWord = true
	p.word.WriteString(p.env(name))
	return "", nil
}

func isName(s string) bool {
	if s == "" || unicode.IsDigit(rune(s[0])) {
		return false
	}
	for _, r := range s {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// redirect reads a redirection: only the ones that merge the output
// streams (2>&1, >&2, 1>&2), which change nothing in a container's log,
// are supported.
func (p *shellParser) redirect(r rune) (string, error) {
	word := p.word.String()
	rest := string(p.in[p.pos:])
	if r == '>' && (word == "2" || word == "1" || word == "") {
		target := "&1"
		if word != "2" {
			target = "&2"
		}
		if strings.HasPrefix(rest, target) && (len(rest) == 2 || strings.ContainsRune(" \t\n;&|", rune(rest[2]))) {
			p.word.Reset()
			p.inWord = false
			p.pos += 2
			return "", nil
		}
	}
	return "a redirection (" + string(r) + ")", nil
}
