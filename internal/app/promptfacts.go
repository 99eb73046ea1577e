package app

// sandboxLine says in one line how run_shell is confined, for the
// environment block: what commands may write and whether they reach the
// network. warning is sandbox.Configure's ("" when fully confined).
func sandboxLine(confined, network bool, warning string) string {
	if !confined {
		return "off (" + warning + ")"
	}
	writes := "on: commands may write only in the project, the temp directory, additional directories and tool caches"
	switch {
	case network:
		return writes + "; network allowed"
	case warning != "":
		return writes + "; network not blocked (this kernel's Landlock cannot)"
	}
	return writes + "; network off (connections fail)"
}
