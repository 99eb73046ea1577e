// Package cmdutil is what hew's command packages share: the usage text of
// a flag set, the check for a help request and the argument rewrites pflag
// needs (rule lists, flags with an optional value). Commands are functions over
// an options struct; this package holds no state.
package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// FlagUsages lists flags like pflag does, without its "[=true|false]"
// decoration of boolean flags and with zero defaults left out.
func FlagUsages(fs *pflag.FlagSet) string {
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, usage := pflag.UnquoteUsage(f)
		if f.Value.Type() != "bool" && name != "" {
			left += " " + name
		}
		switch f.DefValue {
		case "", "false", "0", "[]":
		default:
			usage += " (default " + f.DefValue + ")"
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s   %s\n", width, r.left, r.usage)
	}
	return b.String()
}

// WantsHelp reports whether args ask for help (-h, --help or help before
// any "--").
func WantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "--help" || a == "help" {
			return true
		}
	}
	return false
}

// OptionalValue lets a flag stand without its value, which pflag cannot do
// while also taking the value as the next argument: a bare --LONG or -SHORT
// (last, or followed by another flag) becomes --LONG=missing; `--LONG v`
// and `--LONG=v` are left alone, and so is everything after "--".
func OptionalValue(args []string, long, short, missing string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--"+long || short != "" && a == "-"+short) && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			a = "--" + long + "=" + missing
		}
		out = append(out, a)
	}
	return out
}

// Alias adds name as a second spelling of the flag of (another tool's
// name for it): the same value, taken the same way, and hidden from the
// help.
func Alias(fs *pflag.FlagSet, name, of string) {
	target := fs.Lookup(of)
	fs.Var(target.Value, name, "same as --"+of)
	f := fs.Lookup(name)
	f.NoOptDefVal = target.NoOptDefVal
	f.Hidden = true
}
