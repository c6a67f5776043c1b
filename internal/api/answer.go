package api

import (
	"net/http"
	"strconv"

	"github.com/groundwork-go/groundwork/internal/reply"
)

// Answer writes v as a resource is answered, {"data": v} with status, or
// 204 with no body when v is nil; with err it writes nothing and returns
// err, for the handler's error writer.
func Answer(w http.ResponseWriter, status int, v any, err error) error {
	if err != nil {
		return err
	}
	if v == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	reply.WriteData(w, status, v)
	return nil
}

// PathID is the path value name as a positive number; 0 and false when
// it is not one.
func PathID(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}
