package cli

import (
	"embed"
	"strings"
)

// The commands' long help and examples are data, kept in help/NAME.txt:
// the long help, then after a line "-- examples --" the examples.
//
//go:embed help/*.txt
var helpFiles embed.FS

func helpParts(name string) (long, examples string) {
	data, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("cli: no help for " + name) // every command has its file
	}
	long, examples, _ = strings.Cut(string(data), "\n-- examples --\n")
	return strings.TrimRight(long, "\n"), strings.TrimRight(examples, "\n")
}

// longHelp returns a command's long help.
func longHelp(name string) string {
	long, _ := helpParts(name)
	return long
}

// examples returns a command's examples.
func examples(name string) string {
	_, ex := helpParts(name)
	return ex
}
