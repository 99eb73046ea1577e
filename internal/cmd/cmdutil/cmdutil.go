// Package cmdutil is what hew's command packages share: the usage text of
// a flag set and the check for a help request. Commands are functions over
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
