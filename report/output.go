package report

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gcdoctor/gcdoctor/internal/atomicfile"
)

// Output is how a document is to be printed, as the output flags every
// command that prints one share ask for it (--format, --json, -o,
// --color, --width). Its checks name the flags, so that their messages
// read the same from every command.
type Output struct {
	// Format names one of the document's formats ("" is text); JSON is
	// --json, short for Format "json". Check settles them into one.
	Format string
	JSON   bool
	// File is where the document goes (-o), "" for standard output.
	File string
	// Color is auto, always or never; Width wraps the text.
	Color string
	Width int
}

// MaxWidth bounds --width: wider is no longer a terminal.
const MaxWidth = 1000

// CheckColor checks a --color value.
func CheckColor(mode string) error {
	switch mode {
	case "auto", "always", "never":
		return nil
	}
	return fmt.Errorf("--color must be auto, always or never, not %q", mode)
}

// CheckWidth checks a --width value against the narrowest text a
// document can be wrapped to.
func CheckWidth(width, narrowest int) error {
	if width < narrowest || width > MaxWidth {
		return fmt.Errorf("--width must be between %d and %d", narrowest, MaxWidth)
	}
	return nil
}

// Check checks the width and settles --format and --json into one
// format among names, the document's formats (a diagnosis's when nil),
// before any work is done. formatGiven says --format was given beside
// --json; toTerminal, that standard output is a terminal, where a page
// (pages, see Format.Page) helps nobody.
func (o *Output) Check(names, pages []string, formatGiven, toTerminal bool) error {
	if err := CheckWidth(o.Width, 40); err != nil {
		return err
	}
	if o.Format == "" {
		o.Format = "text"
	}
	o.Format = strings.ToLower(o.Format)
	if names == nil {
		names = Names(DiagnosisFormats)
	}
	if !slices.Contains(names, o.Format) {
		n := len(names)
		return fmt.Errorf("--format must be %s or %s, not %q", strings.Join(names[:n-1], ", "), names[n-1], o.Format)
	}
	if o.JSON {
		if formatGiven && o.Format != "json" {
			return errors.New("--json is --format json: give one of them")
		}
		o.Format = "json"
	}
	o.JSON = o.Format == "json"
	if slices.Contains(pages, o.Format) && o.File == "" && toTerminal {
		// A page of HTML on a terminal helps nobody, and writing a file
		// nobody named could overwrite one.
		return fmt.Errorf("--format %s writes a web page: give -o FILE.%s, or redirect standard output", o.Format, o.Format)
	}
	return nil
}

// Pages lists the formats that are pages to save (see Format.Page).
func Pages[T any](formats []Format[T]) []string {
	var out []string
	for _, f := range formats {
		if f.Page {
			out = append(out, f.Name)
		}
	}
	return out
}

// FormatsHelp describes the formats for the help of --format: each name
// with what it is for.
func FormatsHelp[T any](formats []Format[T]) string {
	var help []string
	for _, f := range formats {
		help = append(help, f.Name+" ("+f.Doc+")")
	}
	return strings.Join(help, ", ")
}

// Emit writes doc in o's format, to stdout or to o.File. A file is
// written atomically and keeps its mode; a device or FIFO is written
// through (see atomicfile). color decides on colours for the writer the
// document goes to; opts.Color and opts.Width are set from it and o.
func Emit[T any](stdout io.Writer, formats []Format[T], doc T, o *Output, opts Options, color func(io.Writer) bool) error {
	rf, ok := Find(formats, o.Format)
	if !ok {
		return fmt.Errorf("no format %q", o.Format)
	}
	render := func(w io.Writer) error {
		opts.Color, opts.Width = color(w), o.Width
		return rf.Render(w, doc, opts)
	}
	if o.File == "" {
		return render(stdout)
	}
	if err := atomicfile.Write(o.File, 0o644, render); err != nil {
		return fmt.Errorf("-o %s: %w", o.File, err)
	}
	return nil
}
