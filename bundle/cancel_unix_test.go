//go:build unix

package bundle

import (
	"archive/tar"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenContextCancel cancels the unpacking of an archive that arrives
// through a pipe, once its first file is being written, and checks that
// nothing is left in TMPDIR.
func TestOpenContextCancel(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	body := make([]byte, 4<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range body {
		body[i] = byte(rng.Uint32()) // incompressible, so the archive is large too
	}
	archive := makeTarGz(t,
		entry{hdr: tar.Header{Name: "b/" + GCTraceFile}, body: string(body)},
		entry{hdr: tar.Header{Name: "b/" + MetaFile}, body: "{}"},
	)
	fifo := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}

	release := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		// The start of the archive, then nothing more until the test is over: the
		// reader is left waiting in the middle of the first file.
		f.Write(archive[:64<<10])
		<-release
	}()
	defer func() {
		close(release)
		<-writerDone
	}()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		b   *Bundle
		err error
	}
	opened := make(chan result, 1)
	go func() {
		b, err := OpenContext(ctx, fifo)
		opened <- result{b, err}
	}()

	// Wait, within a deadline, until the first file is being unpacked.
	deadline := time.Now().Add(60 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(tmp, "gcdoctor-bundle-*", "b", GCTraceFile))
		if len(files) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("unpacking did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	var res result
	select {
	case res = <-opened:
	case <-time.After(60 * time.Second):
		t.Fatal("OpenContext did not return after its context was cancelled")
	}
	if res.b != nil {
		res.b.Close()
		t.Fatal("a bundle from a cancelled unpacking")
	}
	if !errors.Is(res.err, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", res.err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR holds %v after a cancelled unpacking", ents)
	}
}

func TestOpenContextCancelled(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := writeSample(t)
	archive := filepath.Join(t.TempDir(), "b.tgz")
	if err := WriteTarGz(dir, archive); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []string{archive, dir} {
		if _, err := OpenContext(ctx, p); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v does not wrap context.Canceled", p, err)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR holds %v", ents)
	}
}
