-- A form belongs to a tenant (an organization, or the host's own key; ''
-- for a host without tenancy), the same key in every domain.
ALTER TABLE forms_forms ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
CREATE INDEX forms_forms_tenant ON forms_forms (tenant, created_at);
