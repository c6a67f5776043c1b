-- Secret rotation: the secret a rotation replaced (sealed) keeps signing
-- deliveries beside the new one until previous_secret_expires_at.
ALTER TABLE webhooks_subscriptions ADD COLUMN previous_sealed_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE webhooks_subscriptions ADD COLUMN previous_secret_expires_at TIMESTAMP;
