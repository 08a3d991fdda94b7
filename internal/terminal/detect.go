package terminal

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Is reports whether w is a terminal: a writer (or reader) that is an
// *os.File open on one.
func Is(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Color decides on ANSI colours for what is written to w: never when
// NO_COLOR is set (noColor, https://no-color.org) or mode is "never",
// always when mode is "always", else (auto) when w is a terminal.
func Color(mode string, noColor bool, w io.Writer) bool {
	if noColor || mode == "never" {
		return false
	}
	if mode == "always" {
		return true
	}
	return Is(w)
}
