package skills

import (
	"fmt"
	"strconv"
	"strings"
)

// Expand substitutes the arguments and the skill's directory into the body:
// $ARGUMENTS and ${ARGUMENTS} (all of them), $1…$9 and ${1}…${9} (one each,
// split like a shell splits words, quotes respected), $ARGUMENTS[N] (the
// same, counted from 0), ${HEW_SKILL_DIR} and ${CLAUDE_SKILL_DIR}. A body
// that uses none of the argument forms gets the arguments appended, so
// they are never lost.
func (s Skill) Expand(arguments string) string {
	arguments = strings.TrimSpace(arguments)
	words := splitArgs(arguments)
	pairs := []string{"${ARGUMENTS}", arguments, "${HEW_SKILL_DIR}", s.Dir, "${CLAUDE_SKILL_DIR}", s.Dir}
	for i := 0; i < 9; i++ {
		w := ""
		if i < len(words) {
			w = words[i]
		}
		n := strconv.Itoa(i + 1)
		pairs = append(pairs, "$ARGUMENTS["+strconv.Itoa(i)+"]", w, "${"+n+"}", w, "$"+n, w)
	}
	pairs = append(pairs, "$ARGUMENTS", arguments)
	body := strings.NewReplacer(pairs...).Replace(s.Body)
	if arguments != "" && !usesArguments(s.Body) {
		body += "\n\nARGUMENTS: " + arguments
	}
	return body
}

func usesArguments(body string) bool {
	if strings.Contains(body, "$ARGUMENTS") || strings.Contains(body, "${ARGUMENTS}") {
		return true
	}
	for i := 1; i <= 9; i++ {
		n := strconv.Itoa(i)
		if strings.Contains(body, "$"+n) || strings.Contains(body, "${"+n+"}") {
			return true
		}
	}
	return false
}

// splitArgs splits like a shell: whitespace separates words, single and
// double quotes group them, a backslash escapes the next character.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// ParseCommand splits "/NAME ARGS" typed by the user. ok is false for text
// that is not a slash command (including paths such as /usr/bin/x).
func ParseCommand(text string) (name, args string, ok bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	name, args, _ = strings.Cut(t[1:], " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], strings.TrimSpace(name[i:]+" "+args)
	}
	if validName(name) != nil {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// UserMessage is what the conversation receives when the user runs an
// inline skill as /NAME ARGS: the skill's expanded instructions.
func (s Skill) UserMessage(arguments string) string {
	head := fmt.Sprintf("The user ran the %q skill (%s)", s.Name, s.Path)
	if a := strings.TrimSpace(arguments); a != "" {
		head += " with arguments: " + a
	}
	return head + ". Follow its instructions:\n\n" + s.Expand(arguments)
}

// ForkMessage is what the conversation receives after the user ran a fork
// skill: the sub-agent's final answer only, to be relayed or acted on.
func (s Skill) ForkMessage(arguments, answer string) string {
	head := fmt.Sprintf("The user ran the %q skill", s.Name)
	if a := strings.TrimSpace(arguments); a != "" {
		head += " with arguments: " + a
	}
	return head + ". It ran in a separate sub-agent (context: fork); this is its final answer. Pass on what matters to the user:\n\n" + strings.TrimSpace(answer)
}
