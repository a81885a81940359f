"""Setting a database up: Alembic migrations run from code (migrate), the lock that lets one process at a time
migrate and seed (setup_lock), and the seed loader that fills the catalog from seed_data/*.csv (seed)."""
