-- Services, providers and blackouts belong to a tenant (an organization,
-- or the host's own key; '' for a host without tenancy), the same key in
-- every domain; a booking is its service's tenant's. A blackout of every
-- service closes every service of its tenant.
ALTER TABLE bookings_services ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings_providers ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings_blackouts ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
CREATE INDEX bookings_services_tenant ON bookings_services (tenant);
