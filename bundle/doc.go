// Package bundle reads and writes gcdoctor evidence bundles.
//
// A bundle is a directory of plain files, each in the native format of the
// tool that produced it, so that the evidence stays useful without gcdoctor:
//
//	meta.json    how the program was run and what the machine looked like (Meta)
//	gctrace.log  the program's standard error as it arrived, GODEBUG=gctrace=1
//	             lines mixed with the program's own output
//	rss.csv      resident set size samples: header "elapsed_ms,rss_bytes", and
//	             "cpu_ms" (the CPU time used so far) from gcdoctor run
//
// Bundles are written as directories with Create, because evidence is
// streamed while the program runs. They are read with Open, either from a
// directory or from a .tar.gz (or .tgz) archive made by WriteTarGz or by tar
// itself, since archives are how bundles travel between machines. Archives
// are untrusted input: Open refuses entries that would land outside the
// bundle, links of any kind, and archives that expand beyond MaxArchiveSize.
package bundle
