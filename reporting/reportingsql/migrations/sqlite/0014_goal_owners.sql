-- A goal's owner: the webhooks owner whose subscriptions are told when a
-- visitor reaches it (analytics.goal_reached); '' for the default owner.
ALTER TABLE reporting_goals ADD COLUMN owner TEXT NOT NULL DEFAULT '';
