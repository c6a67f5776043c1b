-- What a notification keeps from the API: a Google Sheets notification's
-- refresh token, sealed (NULL for none).
ALTER TABLE forms_notifications ADD COLUMN secret TEXT;
