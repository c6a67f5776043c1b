package forms

import (
	"context"
	"net/http"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// child is a kind of record that belongs to a form (a field, step or
// notification) as the admin API creates, updates and deletes it: under
// /{form}/<kind>s/{param}, from a JSON body applied by apply.
type child[T any] struct {
	param, what string // the path parameter, and its name in a 404
	blank       func(form *Form) *T
	apply       func(v *api.Validator, in map[string]any, t *T)
	find        func(ctx context.Context, formID, id int64) (*T, error)
	insert      func(ctx context.Context, t *T) error
	save        func(ctx context.Context, t *T) error
	remove      func(ctx context.Context, form *Form, id int64) error
}

// create answers POST with 201 and the new record.
func (c child[T]) create(h *Handler) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		form, err := h.form(r)
		if err != nil {
			return err
		}
		in, err := h.input(w, r)
		if err != nil {
			return err
		}
		t := c.blank(form)
		return c.store(h, w, r, in, t, c.insert, http.StatusCreated)
	}
}

// update answers PUT and PATCH with 200 and the record as saved.
func (c child[T]) update(h *Handler) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		form, err := h.form(r)
		if err != nil {
			return err
		}
		id, err := h.id(r, c.param, c.what)
		if err != nil {
			return err
		}
		t, err := c.find(r.Context(), form.ID, id)
		if err != nil {
			return err
		}
		in, err := h.input(w, r)
		if err != nil {
			return err
		}
		return c.store(h, w, r, in, t, c.save, http.StatusOK)
	}
}

// store applies in to t, validates, and writes t with write.
func (c child[T]) store(h *Handler, w http.ResponseWriter, r *http.Request, in map[string]any, t *T,
	write func(context.Context, *T) error, status int) error {
	v := &api.Validator{}
	c.apply(v, in, t)
	if err := v.Err(); err != nil {
		return err
	}
	if err := write(r.Context(), t); err != nil {
		return err
	}
	reply.WriteData(w, status, t)
	return nil
}

// delete answers DELETE with 204.
func (c child[T]) delete(h *Handler) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		form, err := h.form(r)
		if err != nil {
			return err
		}
		id, err := h.id(r, c.param, c.what)
		if err != nil {
			return err
		}
		if err := c.remove(r.Context(), form, id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// byFormID adapts a delete that takes the form's ID.
func byFormID(del func(ctx context.Context, formID, id int64) error) func(context.Context, *Form, int64) error {
	return func(ctx context.Context, f *Form, id int64) error { return del(ctx, f.ID, id) }
}

func (h *Handler) fieldsAPI() child[Field] {
	return child[Field]{param: "field", what: "Field", blank: func(f *Form) *Field { return &Field{FormID: f.ID} },
		apply: applyField, find: h.svc.Field, insert: h.svc.CreateField, save: h.svc.UpdateField, remove: byFormID(h.svc.DeleteField)}
}

func (h *Handler) stepsAPI() child[Step] {
	return child[Step]{param: "step", what: "Step", blank: func(f *Form) *Step { return &Step{FormID: f.ID} },
		apply: applyStep, find: h.svc.Step, insert: h.svc.CreateStep, save: h.svc.UpdateStep, remove: h.svc.DeleteStep}
}

func (h *Handler) notificationsAPI() child[Notification] {
	return child[Notification]{param: "notification", what: "Notification",
		blank: func(f *Form) *Notification { return &Notification{FormID: f.ID, IsEnabled: true} },
		apply: applyNotification, find: h.svc.Notification, insert: h.svc.CreateNotification, save: h.svc.UpdateNotification,
		remove: byFormID(h.svc.DeleteNotification)}
}
