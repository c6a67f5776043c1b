-- Feeds: a form of the application linked to a form and tags at an
-- email-list provider.
CREATE TABLE emaillist_feeds (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	form_id INTEGER NOT NULL CHECK (form_id >= 1),
	name TEXT NOT NULL,
	list_form_id INTEGER CHECK (list_form_id >= 1),
	list_tag_ids TEXT NOT NULL,
	field_map TEXT NOT NULL,
	conditional_logic TEXT,
	is_active BOOLEAN NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	UNIQUE (form_id, name)
);
CREATE INDEX emaillist_feeds_active ON emaillist_feeds (form_id, is_active);
