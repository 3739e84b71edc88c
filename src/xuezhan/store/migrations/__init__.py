"""Alembic migrations of the store (applied by :func:`xuezhan.store.migrate`)."""
