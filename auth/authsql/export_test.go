package authsql

// MigrationFiles are the embedded migrations, for the upgrade test.
var MigrationFiles = migrations
