package forms

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// maxDefinitions bounds the definitions cache; when full it starts over.
const maxDefinitions = 1024

// definitions caches, for the public submit endpoint, the forms it
// resolves with their fields, by the {form} reference of the URL. An entry
// is never trusted blindly: the form's version travels with the
// submission, and the store refuses the submission if the form has
// changed since (ErrStale), whichever instance changed it. Entries are
// shared and must not be modified.
type definitions struct {
	mu    sync.RWMutex
	byRef map[string]definition
}

type definition struct {
	form   *Form
	fields []Field
	// notifications are the form's, when the service queues them;
	// nil means not read.
	notifications []Notification
}

func (d *definitions) get(ref string) (definition, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	def, ok := d.byRef[ref]
	return def, ok
}

func (d *definitions) put(ref string, def definition) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byRef == nil || len(d.byRef) >= maxDefinitions {
		d.byRef = make(map[string]definition)
	}
	d.byRef[ref] = def
}

func (d *definitions) forget(ref string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.byRef, ref)
}

// submitDefinition resolves ref for a submission: from the cache when it
// holds ref, else read (and then cached). Only active forms are cached.
func (s *Service) submitDefinition(ctx context.Context, ref string) (definition, error) {
	if def, ok := s.defs.get(ref); ok {
		return def, nil
	}
	return s.loadDefinition(ctx, ref)
}

// loadDefinition reads the form of ref with its fields and, when the
// service queues notifications, its notifications.
func (s *Service) loadDefinition(ctx context.Context, ref string) (definition, error) {
	form, fields, err := s.FormWithFields(ctx, ref)
	if err != nil {
		s.defs.forget(ref)
		return definition{}, err
	}
	def := definition{form: form, fields: fields}
	if s.enqueuer != nil {
		if def.notifications, err = s.store.Notifications(ctx, form.ID); err != nil {
			return definition{}, fmt.Errorf("forms: notifications: %w", err)
		}
		if def.notifications == nil {
			def.notifications = []Notification{}
		}
	}
	if form.IsActive {
		s.defs.put(ref, def)
	} else {
		s.defs.forget(ref)
	}
	return def, nil
}

// staleAttempts is how many times submitChecked validates a submission
// against a definition that turns out to have changed before giving up.
const staleAttempts = 3

// submitChecked stores req as Submit does, validated against def from
// submitDefinition. When the store finds the definition stale, it reads
// the definition of ref again and validates the submission again. It
// returns the form it finally used.
func (s *Service) submitChecked(ctx context.Context, ref string, def definition, req *SubmitRequest) (*SubmitResult, *Form, error) {
	kept := false
	defer func() {
		if !kept {
			s.discardFiles(ctx, req.Files)
		}
	}()
	if err := s.takeKept(ctx, def.form, req); err != nil {
		return nil, def.form, err
	}
	for attempt := 1; ; attempt++ {
		res, err := s.submit(ctx, def, req, true)
		if err == nil {
			kept = true
			return res, def.form, nil
		}
		if !errors.Is(err, ErrStale) || attempt == staleAttempts {
			var ve *ValidationError
			if req.keepValid && errors.As(err, &ve) {
				s.keepUploads(ctx, def.form, req, ve)
			}
			return nil, def.form, err
		}
		if def, err = s.loadDefinition(ctx, ref); err != nil {
			return nil, nil, err
		}
	}
}
