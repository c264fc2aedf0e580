"""A foreign key whose database constraint is dropped (`db_constraint=False` in the model).

PostgreSQL checks a foreign key by locking the referenced row FOR KEY SHARE for every row
inserted: a tuple lock, written to the WAL, on the merchant's one row (and the customer's) by every
payment, ledger leg, rollup, event and counter of the merchant, and a new MultiXact whenever two
writes hold it at once. Measured on the intent create's statement: 70-110 us of its 320-400 us of
PostgreSQL CPU, whether one connection writes or eight (docs/decisions.md, "Foreign keys").

`DropForeignKey` is Tortoise's AlterField (the migration state gets the model's field, so
`makemigrations` stays quiet) plus, on PostgreSQL, the constraint dropped by its column. On
SQLite it changes nothing: SQLite drops a constraint only by remaking the table, which Tortoise
does losing the table's indexes (migrations/_indexes.py), and the embedded database, one process
at a time, keeps its constraints."""
from __future__ import annotations

from tortoise.migrations import operations as ops


class DropForeignKey(ops.AlterField):
    def describe(self) -> str:
        return f"Drop the foreign-key constraint of {self.model_name}.{self.name} (PostgreSQL)"

    async def database_forward(self, app_label, old_state, new_state, state_editor=None) -> None:
        found = postgres_column(state_editor, new_state, app_label, self.model_name, self.name, f"{self.name}_id")
        if found is not None:
            await state_editor._run_sql(drop_constraints_sql(*found, "f"))

    async def database_backward(self, app_label, old_state, new_state, state_editor=None) -> None:
        return None


def postgres_column(state_editor, state, app_label: str, model_name: str, field: str,
                    column: str | None = None) -> tuple[str, str] | None:
    """(table, column) of `model_name.field` in `state`, when the migration runs on PostgreSQL
    (None elsewhere: these operations change nothing on SQLite); `column` when the field names
    none of its own."""
    if not state_editor or state_editor.DIALECT == "sqlite":
        return None
    model = state.apps.get_model(f"{app_label}.{model_name}")
    return model._meta.db_table, model._meta.fields_map[field].source_field or column or field


def drop_constraints_sql(table: str, column: str, kind: str) -> str:
    """PostgreSQL's statement dropping the constraints of `kind` (`f` foreign key, `u` unique) on
    exactly `column` of `table`, whatever their names."""
    return f"""DO $$ DECLARE c record; BEGIN
  FOR c IN SELECT conname FROM pg_constraint
           WHERE conrelid = '"{table}"'::regclass AND contype = '{kind}'
             AND conkey = ARRAY[(SELECT attnum FROM pg_attribute
                                 WHERE attrelid = '"{table}"'::regclass AND attname = '{column}')]::int2[]
  LOOP EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', '{table}', c.conname); END LOOP;
END $$"""
