package auth

import (
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// A Grant is who may use one ability a route asks for: a bearer token
// carrying Ability (or a wildcard that covers it, see groundwork.Can),
// and a signed-in user holding Capability.
type Grant struct {
	Ability    string
	Capability string
}

// Authorizer is the groundwork.RequestAuthorizer of the routes open to a
// bearer token and to a signed-in user alike (the reports, the email-list
// feeds): a request with "Authorization: Bearer" is decided by the
// token alone (an unknown, revoked or expired one is Unauthenticated, one
// without the ability Forbidden); one without, by the user Web.LoadUser
// put in its context (none is Unauthenticated, one without the
// capability Forbidden). grants maps each ability a route asks for to its
// Grant; an ability it does not name needs a token carrying that very
// ability, and is forbidden to users. The handler it is given to writes
// the 401 or the 403 naming the missing ability.
func (s *Service) Authorizer(grants map[string]Grant) groundwork.RequestAuthorizer {
	return groundwork.RequestAuthorizerFunc(func(r *http.Request, ability string, _ any) groundwork.Access {
		g, known := grants[ability]
		if !known {
			g = Grant{Ability: ability}
		}
		if token, ok := api.BearerToken(r); ok {
			caller, abilities, err := s.VerifyToken(r.Context(), token)
			switch {
			case err != nil || caller == "":
				return groundwork.Unauthenticated
			case groundwork.Can(abilities, g.Ability):
				return groundwork.Allowed
			}
			return groundwork.Forbidden
		}
		u, ok := UserFrom(r.Context())
		switch {
		case !ok:
			return groundwork.Unauthenticated
		case g.Capability != "" && u.Can(g.Capability):
			return groundwork.Allowed
		}
		return groundwork.Forbidden
	})
}
