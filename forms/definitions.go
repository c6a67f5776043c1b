package forms

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// steps are the form's, read with its fields; nil when not read.
	steps []Step
	// notifications are the form's, when the service queues them;
	// nil means not read.
	notifications []Notification
	// cached is true when the definition came from the cache rather than
	// the store.
	cached bool
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
		def.cached = true
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
	if def.steps, err = s.store.Steps(ctx, form.ID); err != nil {
		return definition{}, fmt.Errorf("forms: steps: %w", err)
	}
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
// submitDefinition. A definition may be stale two ways, and each costs a
// read, never a wrong answer: when the store finds the form's version
// changed (an edit that narrows what the form takes), and when a cached
// definition refuses the answers (an edit that widens it: an option
// added, a field made optional, which no version check sees because
// nothing is stored). Either way the definition of ref is read again and
// the submission judged again. It returns the form it finally used.
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
	if err := s.takePartial(ctx, def.form, req); err != nil {
		return nil, def.form, err
	}
	for attempt := 1; ; attempt++ {
		res, err := s.submit(ctx, def, req, true)
		if err == nil {
			kept = true
			s.dropPartialFiles(ctx, req.resumed, res.Submission)
			return res, def.form, nil
		}
		var ve *ValidationError
		refused := errors.As(err, &ve)
		// A refusal (bad answers, or the form closed by its dates) made
		// against a cached definition is judged again if the form has
		// changed since.
		if (refused || errors.Is(err, ErrClosed)) && def.cached {
			fresh, err := s.loadDefinition(ctx, ref)
			if err != nil {
				return nil, nil, err
			}
			if fresh.form.ID != def.form.ID || fresh.form.Version != def.form.Version {
				req.rejudge(s, def.fields, fresh.fields)
				def = fresh
				continue
			}
		}
		if _, onward := errors.AsType[*stepTaken](err); onward && req.keepValid {
			s.keepUploads(ctx, def.form, req, &ValidationError{}) // for the last step's sending
		}
		if !errors.Is(err, ErrStale) || attempt >= staleAttempts {
			if refused && req.keepValid {
				s.keepUploads(ctx, def.form, req, ve)
			}
			return nil, def.form, err
		}
		if def, err = s.loadDefinition(ctx, ref); err != nil {
			return nil, nil, err
		}
	}
}

// rejudge drops the refusals of files made as they streamed against old
// fields that the new fields judge otherwise: a field gone takes nothing,
// so its refusal goes; a file field whose rules changed asks for the file
// again, since its bytes were not kept.
func (req *SubmitRequest) rejudge(s *Service, old, new []Field) {
	for name := range req.refused {
		i := slices.IndexFunc(old, func(f Field) bool { return f.Name == name })
		j := slices.IndexFunc(new, func(f Field) bool { return f.Name == name })
		switch {
		case j < 0:
			delete(req.refused, name)
		case i < 0 || !s.sameFileRules(&old[i], &new[j]):
			req.refused[name] = []string{fmt.Sprintf("The form changed while you were sending it: choose the %s file again.", label(&new[j]))}
		}
	}
}

// sameFileRules reports whether a and b take the same files.
func (s *Service) sameFileRules(a, b *Field) bool {
	return a.Type == b.Type && slices.Equal(s.allowedTypes(a), s.allowedTypes(b)) && s.maxFileSize(a) == s.maxFileSize(b)
}
