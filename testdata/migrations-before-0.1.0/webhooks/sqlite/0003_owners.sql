-- Owners: a subscription is its owner's (an opaque string the host
-- chooses); the subscriptions from before are the default owner's ('').
-- A fan-out reads the active subscriptions of one owner.
ALTER TABLE webhooks_subscriptions ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX webhooks_subscriptions_owner ON webhooks_subscriptions (owner, is_active);
