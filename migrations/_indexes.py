"""The declared indexes of a model, made again where a SQLite table remake dropped them.

On SQLite, Tortoise alters or drops a column by remaking the table (a new table, the rows copied,
the old table dropped, the new one renamed: SQLite's documented ALTER recipe). The dropped table
takes its indexes with it, and the remake makes none of the model's `Meta.indexes` again. So an
embedded database migrated from scratch lacked the intents' and the events' list indexes that
PostgreSQL has had since their first migration. `RestoreIndexes` makes each declared index under
the name Tortoise gives it (`CREATE INDEX IF NOT EXISTS`), on SQLite only: on PostgreSQL a
column change is an ALTER TABLE and the indexes were never lost.
tests/test_schema_agrees.py checks every declared index exists, on both databases."""
from __future__ import annotations

from tortoise.indexes import Index
from tortoise.migrations import operations as ops

from migrations._keys import drop_constraints_sql, postgres_column


class RestoreIndexes(ops.TortoiseOperation):
    def __init__(self, model_name: str) -> None:
        self.model_name = model_name

    def describe(self) -> str:
        return f"Make the declared indexes of {self.model_name} where they are missing (SQLite)"

    async def database_forward(self, app_label, old_state, new_state, state_editor=None) -> None:
        if not state_editor or state_editor.DIALECT != "sqlite":
            return
        model = new_state.apps.get_model(f"{app_label}.{self.model_name}")
        for declared in model._meta.indexes:
            index = declared if isinstance(declared, Index) else Index(fields=list(declared))
            name = state_editor._index_name_for_model(model, index)
            columns = ", ".join(f'"{c}"' for c in index.fields)
            await state_editor._run_sql(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{model._meta.db_table}" '
                                        f'({columns}){index.extra or ""}')


class UniqueWhenGiven(ops.TortoiseOperation):
    """A nullable unique column's constraint made a partial unique index of the rows that have a
    value (`CREATE UNIQUE INDEX ... WHERE column IS NOT NULL`), on PostgreSQL. The same rule --
    a UNIQUE constraint never compares NULLs -- without an entry for every row that has none:
    most rows of the table, each paying an index entry when written (issue 48). The model keeps
    `unique=True` (what is enforced), so the migration state and `makemigrations` do not change;
    on SQLite the table's constraint stays (SQLite drops one only by remaking the table)."""

    def __init__(self, model_name: str, field: str, name: str) -> None:
        self.model_name, self.field, self.name = model_name, field, name

    def describe(self) -> str:
        return f"Make the unique {self.model_name}.{self.field} a partial index of the rows with one (PostgreSQL)"

    async def database_forward(self, app_label, old_state, new_state, state_editor=None) -> None:
        found = postgres_column(state_editor, new_state, app_label, self.model_name, self.field)
        if found is None:
            return
        table, column = found
        await state_editor._run_sql(drop_constraints_sql(table, column, "u"))
        await state_editor._run_sql(f'CREATE UNIQUE INDEX IF NOT EXISTS "{self.name}" ON "{table}" ("{column}") '
                                    f'WHERE "{column}" IS NOT NULL')

    async def database_backward(self, app_label, old_state, new_state, state_editor=None) -> None:
        return None
