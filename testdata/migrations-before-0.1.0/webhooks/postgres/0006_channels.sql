-- Channels: an endpoint with channels (a JSON array) receives only the
-- events that carry one of them; '[]' receives its events whatever their
-- channels.
ALTER TABLE webhooks_subscriptions ADD COLUMN channels JSONB NOT NULL DEFAULT '[]';
