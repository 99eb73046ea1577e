package headless

import (
	"errors"
	"fmt"
)

// CheckFormats checks the --output-format and --input-format names given
// on the command line: stream-json input (a program writing user messages)
// needs a machine-readable answer.
func CheckFormats(output, input string) error {
	switch Format(output) {
	case FormatText, FormatJSON, FormatStreamJSON:
	default:
		return fmt.Errorf("unknown --output-format %q (want text, json or stream-json)", output)
	}
	switch input {
	case "text":
		return nil
	case "stream-json":
		if Format(output) == FormatText {
			return errors.New("--input-format stream-json needs --output-format stream-json (or json)")
		}
		return nil
	}
	return fmt.Errorf("unknown --input-format %q (want text or stream-json)", input)
}
