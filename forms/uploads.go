package forms

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/internal/api"
)

// uploadKeepTime is how long a kept upload waits for the next try.
const uploadKeepTime = time.Hour

// KeptUploadField names the hidden input ("_upload[cv]") that carries a
// kept upload's id for the field cv.
const KeptUploadField = "_upload"

// msgKeptUploadGone is a field's message when the upload kept from the
// visitor's last try can no longer be used (taken, swept or forged).
const msgKeptUploadGone = "The file you chose before is no longer kept. Please choose it again."

var errTooLarge = errors.New("forms: file too large")

// IncomingFile is an uploaded file already written to the BlobStore,
// waiting for the rest of its submission.
type IncomingFile struct {
	FieldName    string
	OriginalName string
	StoredName   string
	Key          string
	MimeType     string
	Size         int64
	// borrowed is a file of a saved partial response: a failure leaves
	// it for the partial.
	borrowed bool
}

// KeptUpload is a valid upload of a submission that failed on another
// field, kept for the visitor's next try, which names it by ID (random,
// unguessable) instead of sending the file again. Swept after
// an hour.
type KeptUpload struct {
	ID     string
	FormID int64
	IncomingFile
	CreatedAt time.Time
}

// cleanFileName keeps the base name of a client's file name, without
// control characters, at most 255 bytes; it is shown, never used as a
// path.
func cleanFileName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > 255 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "." || name == "/" {
		return "file"
	}
	return name
}

// extension is the lower-case extension of a client file name, "" if it
// has none usable.
func extension(name string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if !extPattern.MatchString(ext) {
		return ""
	}
	return ext
}

// allowedTypes are the extensions a file field takes.
func (s *Service) allowedTypes(f *Field) []string {
	list, ok := f.FieldConfig["allowed_types"].([]any)
	if !ok || len(list) == 0 {
		return s.extensions
	}
	out := make([]string, 0, len(list))
	for _, t := range list {
		if str, ok := t.(string); ok {
			out = append(out, strings.ToLower(strings.TrimPrefix(str, ".")))
		}
	}
	return out
}

// maxFileSize is the largest file a field takes, in bytes: the field's
// max_size (KB) when smaller than the service's cap.
func (s *Service) maxFileSize(f *Field) int64 {
	limit := s.maxFile
	if kb, ok := f.FieldConfig["max_size"].(float64); ok && kb > 0 && int64(kb*1024) < limit {
		limit = int64(kb * 1024)
	}
	return limit
}

// AcceptFile stores one uploaded file for the field named field, checking
// that the field takes files, and the file's extension and size, while
// it streams. A file the field refuses is a *ValidationError, and nothing
// is kept. The caller hands the result to Submit, which deletes it if the
// submission fails.
func (s *Service) AcceptFile(ctx context.Context, form *Form, fields []Field, field, fileName string, r io.Reader) (*IncomingFile, error) {
	i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == field })
	if i < 0 {
		return nil, nil // not a field of this form: ignored, as unknown values are
	}
	f := &fields[i]
	if f.Type != TypeFile {
		return nil, api.Invalid(field, fmt.Sprintf("The %s field does not take files.", label(f)))
	}
	if s.blobs == nil {
		return nil, api.Invalid(field, fmt.Sprintf("The %s field cannot take files here: uploads are not configured.", label(f)))
	}
	name := cleanFileName(fileName)
	ext := extension(name)
	allowed := s.allowedTypes(f)
	if ext == "" || !slices.Contains(allowed, ext) {
		return nil, api.Invalid(field, fmt.Sprintf("The %s field must be a file of type: %s.", label(f), strings.Join(allowed, ", ")))
	}
	limit := s.maxFileSize(f)
	// Sniff the type from the first bytes, then stream the rest.
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("forms: read upload: %w", err)
	}
	head = head[:n]
	mime := http.DetectContentType(head)
	stored := s.newUUID() + "." + ext
	key := fmt.Sprintf("uploads/%d/%s", form.ID, stored)
	counter := &countingReader{r: io.MultiReader(bytes.NewReader(head), r), limit: limit}
	size, err := s.blobs.Put(ctx, key, counter)
	if errors.Is(err, errTooLarge) || counter.over {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), key)
		return nil, api.Invalid(field, fmt.Sprintf("The %s field must not be greater than %d kilobytes.", label(f), limit/1024))
	}
	if err != nil {
		return nil, fmt.Errorf("forms: store upload: %w", err)
	}
	if size == 0 {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), key)
		return nil, api.Invalid(field, fmt.Sprintf("The %s field must be a file that is not empty.", label(f)))
	}
	return &IncomingFile{FieldName: field, OriginalName: name, StoredName: stored, Key: key, MimeType: mime, Size: size}, nil
}

// countingReader fails once more than limit bytes have been read.
type countingReader struct {
	r     io.Reader
	n     int64
	limit int64
	over  bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		c.over = true
		return n, errTooLarge
	}
	return n, err
}

// discardFiles deletes files a failed submission will not keep.
func (s *Service) discardFiles(ctx context.Context, files map[string]*IncomingFile) {
	keys := make([]string, 0, len(files))
	for _, f := range files {
		if f != nil && !f.borrowed {
			keys = append(keys, f.Key)
		}
	}
	s.removeBlobs(ctx, keys)
}

// takeKept puts the uploads kept from the visitor's last try back in req,
// by field, each taken once; a file sent again for the field wins (the
// kept one goes). A kept upload that is gone is the field's message.
func (s *Service) takeKept(ctx context.Context, form *Form, req *SubmitRequest) error {
	for field, id := range req.KeptIDs {
		k, err := s.store.TakeUpload(ctx, form.ID, id)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("forms: take kept upload: %w", err)
		}
		usable := err == nil && k.FieldName == field && s.now().Sub(k.CreatedAt) < uploadKeepTime
		if err == nil && (!usable || req.Files[field] != nil) {
			s.removeBlobs(ctx, []string{k.Key})
		}
		switch {
		case req.Files[field] != nil:
		case usable:
			file := k.IncomingFile
			req.Files[field] = &file
		default:
			req.refuse(field, msgKeptUploadGone)
		}
	}
	return nil
}

// keepUploads keeps, for the visitor's next try, each file of req whose
// field has no message in ve, and takes it out of req.Files so that the
// failure does not delete it; req.Kept names them for the page.
func (s *Service) keepUploads(ctx context.Context, form *Form, req *SubmitRequest, ve *ValidationError) {
	errs := ve.Fields()
	for field, f := range req.Files {
		if f == nil || f.borrowed || len(errs[field]) > 0 {
			continue // a partial's file stays the partial's
		}
		id := make([]byte, 16)
		_, _ = rand.Read(id)
		k := KeptUpload{ID: hex.EncodeToString(id), FormID: form.ID, IncomingFile: *f, CreatedAt: s.now()}
		if err := s.store.KeepUpload(ctx, k); err != nil {
			s.logger.WarnContext(ctx, "forms: keep upload", "form", form.ID, "error", err)
			continue
		}
		if req.Kept == nil {
			req.Kept = map[string]KeptUpload{}
		}
		req.Kept[field] = k
		delete(req.Files, field)
	}
}

// SweepKeptUploads deletes the uploads kept longer than an hour and
// the partial responses expired, with their files, and returns how many
// files went (the periodic job's work).
func (s *Service) SweepKeptUploads(ctx context.Context) (int, error) {
	keys, err := s.store.DropKeptUploads(ctx, s.now().Add(-uploadKeepTime))
	if err != nil {
		return 0, err
	}
	partial, err := s.store.DropExpiredPartials(ctx, s.now())
	if err != nil {
		return 0, err
	}
	keys = append(keys, partial...)
	s.removeBlobs(ctx, keys)
	return len(keys), nil
}
