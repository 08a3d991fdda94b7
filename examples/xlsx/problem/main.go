// Command problem is seed 003's spreadsheet built in memory: -rows rows of
// -cols cells set one row at a time on an excelize.File, then written out.
// Every cell stays in memory until the end, so the live heap grows with the
// sheet.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/xuri/excelize/v2"

	"github.com/gcdoctor/gcdoctor/agent"
)

func main() {
	rows := flag.Int("rows", 50000, "rows to write")
	cols := flag.Int("cols", 10, "cells per row")
	flag.Parse()
	// Under gcdoctor run or doctor, the heap profile at the peak goes to
	// the bundle.
	defer agent.WatchHeapPeak()()

	f := excelize.NewFile()
	defer f.Close()
	row := make([]any, *cols)
	for r := 1; r <= *rows; r++ {
		for c := range row {
			row[c] = r*(*cols) + c
		}
		cell, err := excelize.CoordinatesToCellName(1, r)
		if err == nil {
			err = f.SetSheetRow("Sheet1", cell, &row)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	n, err := f.WriteTo(io.Discard)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "xlsx bytes:", n)
}
