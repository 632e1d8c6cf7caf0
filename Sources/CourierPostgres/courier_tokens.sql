-- The table of PostgresTokenStore (CourierPostgres), for teams that run migrations; Courier
-- also creates it on first use with CREATE TABLE IF NOT EXISTS. One row per key (a credential:
-- an account, a tenant). Rename it with PostgresDatabase(connection:table:).
CREATE TABLE IF NOT EXISTS courier_tokens (
    key           text PRIMARY KEY,                  -- which credential
    token         jsonb,                             -- the OAuthToken; NULL when signed out
    change        smallint,                          -- what the last write was (TokenChange)
    generation    bigint NOT NULL DEFAULT 0,         -- +1 on every write: fences late writers
    lease_owner   uuid,                              -- the session renewing the token, if any
    lease_expires timestamptz,                       -- measured on the database's clock
    lease_backed  boolean NOT NULL DEFAULT false,    -- its holder also holds the advisory lock
    lease_taken   timestamptz,                       -- when: a lease taken before a restart lost its lock
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- Courier's role needs SELECT, INSERT and UPDATE on it (and CREATE on the schema only if it
-- is to create the table itself); leases also use pg_try_advisory_lock, open to every role.
-- Upgrading a table created by Courier 1.5.0 (which Courier also does on first use, when its
-- role owns the table):
ALTER TABLE courier_tokens ADD COLUMN IF NOT EXISTS lease_taken timestamptz;
