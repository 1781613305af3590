package main

import (
	"fmt"
	"sort"
	"strings"
)

// markdown is the whole report.
func (rep *report) markdown() string {
	var b strings.Builder
	b.WriteString(rep.header())
	b.WriteString(rep.notes())
	b.WriteString("## Summary of the differences\n\n| request | kubesim | peer | what differs | left because |\n|---|---|---|---|---|\n")
	for _, c := range rep.differing {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", c.req.name, c.req.name,
			cell(c.kubesim.brief()), cell(c.peer.brief()), cell(whats(c.findings)), cell(firstOf(left[c.req.name], "(not known)")))
	}
	b.WriteString("\n## Differences\n\n")
	for _, c := range rep.differing {
		b.WriteString(section(c, ""))
	}
	b.WriteString(rep.keptSection())
	b.WriteString(rep.allRequests())
	return b.String()
}

// keptSection lists the differences kept on purpose.
func (rep *report) keptSection() string {
	var b strings.Builder
	b.WriteString("## Kept on purpose\n\n")
	if len(rep.kept) == 0 {
		b.WriteString("None yet: expected.go is empty.\n\n")
	}
	for _, c := range rep.kept {
		b.WriteString(section(c, expected[c.req.name]))
	}
	return b.String()
}

// allRequests is the table of every compared request and both answers.
func (rep *report) allRequests() string {
	var b strings.Builder
	b.WriteString("## Every request\n\n| request | kubesim | peer | differs |\n|---|---|---|---|\n")
	for _, c := range rep.all {
		d := ""
		if len(c.findings) > 0 {
			d = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.req.name, cell(c.kubesim.brief()), cell(c.peer.brief()), d)
	}
	return b.String()
}

// notes states the normalization and what it leaves out.
func (rep *report) notes() string {
	var b strings.Builder
	b.WriteString("## How the answers are compared\n\n")
	b.WriteString("Compared: the status code, Content-Type, Warning headers; a Status's status, reason, code, " +
		"message, details (kind, name, group, causes); any body's shape (its JSON paths and their types; arrays " +
		"as the union of their elements, maps keyed by data such as labels as `.*`); the values a request names; " +
		"a watch's events (type, kind, name). Each server gets the corpus in order; both run at once.\n\n")
	b.WriteString("Normalized in texts (normalize.go): the run's id (`{id}`) and namespace (`{ns}`) and values " +
		"saved from answers (`{name}`); then:\n\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "- `%s` → `%s`\n", r.re, r.with)
	}
	fmt.Fprintf(&b, "\n**managedFields** are left out of every shape, and stated here once: of %d JSON answers "+
		"that are not a Status, kubesim's had `metadata.managedFields` in %d, the peer's in %d.\n\n",
		rep.objects, rep.managedKubesim, rep.managedPeer)
	if len(rep.setupFailures) > 0 {
		b.WriteString("Setup requests that failed (their answers are not compared, but what follows them may suffer):\n\n")
		for _, f := range rep.setupFailures {
			fmt.Fprintf(&b, "- %s\n", cell(f))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// section is one difference in full.
func section(c compared, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", c.req.name)
	if why != "" {
		fmt.Fprintf(&b, "Kept on purpose: %s\n\n", why)
	}
	fmt.Fprintf(&b, "`%s %s`", firstOf(c.req.method, "GET"), c.req.path)
	if c.req.auth != asAdmin {
		fmt.Fprintf(&b, " as %s", c.req.auth)
	}
	for _, k := range sortedKeys(c.req.header) {
		fmt.Fprintf(&b, " `%s: %s`", k, c.req.header[k])
	}
	if c.req.ctype != "" || c.req.accept != "" {
		fmt.Fprintf(&b, " (Content-Type `%s`, Accept `%s`)", c.req.ctype, c.req.accept)
	}
	b.WriteString("\n\n")
	if c.req.body != "" {
		fmt.Fprintf(&b, "```\n%s\n```\n\n", strings.TrimSpace(c.req.body))
	}
	fmt.Fprintf(&b, "- kubesim: %s\n- peer: %s\n", inline(c.kubesim.summary()), inline(c.peer.summary()))
	for _, k := range sortedKeys(c.req.ignore) {
		fmt.Fprintf(&b, "- ignored `%s`: %s\n", k, c.req.ignore[k])
	}
	b.WriteString("\n")
	for _, f := range c.findings {
		b.WriteString(findingText(f))
	}
	return b.String()
}

// findingText is one finding: inline when both sides are one short line,
// else two fenced blocks.
func findingText(f finding) string {
	if !strings.Contains(f.kubesim+f.peer, "\n") && len(f.kubesim)+len(f.peer) < 160 {
		return fmt.Sprintf("- **%s**: kubesim %s, peer %s\n\n", f.what, inline(orNone(f.kubesim)), inline(orNone(f.peer)))
	}
	return fmt.Sprintf("- **%s**\n\n  kubesim:\n  ```\n%s\n  ```\n  peer:\n  ```\n%s\n  ```\n\n",
		f.what, indent(orNone(f.kubesim)), indent(orNone(f.peer)))
}

// brief is an answer's code and reason, for the summary table.
func (a answer) brief() string {
	switch {
	case a.err != "":
		return "error"
	case a.status != nil:
		return fmt.Sprintf("%d %s", a.code, firstOf(a.status.Reason, "Status "+a.status.Status))
	}
	return fmt.Sprint(a.code)
}

// whats names the findings.
func whats(f []finding) string {
	var w []string
	for _, x := range f {
		w = append(w, x.what)
	}
	return strings.Join(w, ", ")
}

// cell makes s fit in a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

// inline is s as inline code.
func inline(s string) string { return "`` " + strings.ReplaceAll(s, "\n", " ") + " ``" }

// indent indents every line of s for a fenced block inside a list item.
func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// orNone says "(none)" for an empty side.
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// sortedKeys are m's keys, sorted.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
