package forms

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// BlobStore keeps uploaded files under keys such as "uploads/12/<uuid>.pdf".
// Keys are made by the service from UUIDs, never from client file names.
type BlobStore interface {
	// Put stores r under key and returns its size; a failed Put leaves
	// nothing behind.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Open returns the file, or an error wrapping fs.ErrNotExist.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes the file; a missing file is not an error.
	Delete(ctx context.Context, key string) error
}

// DirBlobStore is a BlobStore in a local directory. Every access goes
// through an os.Root, so no key can reach outside the directory.
type DirBlobStore struct {
	root *os.Root
}

var _ BlobStore = (*DirBlobStore)(nil)

// NewDirBlobStore opens dir, creating it when missing.
func NewDirBlobStore(dir string) (*DirBlobStore, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("forms: blob store: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("forms: blob store: %w", err)
	}
	return &DirBlobStore{root: root}, nil
}

// Close releases the directory.
func (d *DirBlobStore) Close() error { return d.root.Close() }

func checkKey(key string) error {
	if key == "" || !fs.ValidPath(key) || strings.Contains(key, "\\") {
		return fmt.Errorf("forms: blob store: invalid key %q", key)
	}
	return nil
}

// Put implements BlobStore: it writes a temporary file and renames it into
// place, so a reader never sees half a file.
func (d *DirBlobStore) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	if dir := path.Dir(key); dir != "." {
		if err := d.root.MkdirAll(dir, 0o750); err != nil {
			return 0, fmt.Errorf("forms: blob store: %w", err)
		}
	}
	tmp := key + ".part"
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return 0, fmt.Errorf("forms: blob store: %w", err)
	}
	n, err := io.Copy(f, readerWithContext(ctx, r))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, key)
	}
	if err != nil {
		_ = d.root.Remove(tmp)
		return 0, fmt.Errorf("forms: blob store: %w", err)
	}
	return n, nil
}

// Open implements BlobStore.
func (d *DirBlobStore) Open(_ context.Context, key string) (io.ReadCloser, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	f, err := d.root.Open(key)
	if err != nil {
		return nil, fmt.Errorf("forms: blob store: %w", err)
	}
	return f, nil
}

// Delete implements BlobStore.
func (d *DirBlobStore) Delete(_ context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := d.root.Remove(key); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forms: blob store: %w", err)
	}
	return nil
}

// readerWithContext stops reading once ctx is done.
func readerWithContext(ctx context.Context, r io.Reader) io.Reader {
	return ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
