"""Query answers as Python lists."""

from __future__ import annotations

from typing import Any, List, Sequence


class Rows(List[dict]):
    """A query's answer: a list with one dict (column -> value) per row.

    ``columns`` keeps the columns in order (a dict per row would lose
    duplicates and the order of an empty answer); ``to_pandas()`` makes a
    DataFrame when pandas is installed (it is not a dependency).
    """

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]] = ()):
        self.columns: List[str] = list(columns)
        super().__init__(dict(zip(self.columns, row)) for row in rows)
        self._tuples = [tuple(row) for row in rows]

    def tuples(self) -> List[tuple]:
        """The rows as tuples, in column order."""
        return list(self._tuples)

    def to_pandas(self):
        """The rows as a ``pandas.DataFrame`` (needs pandas)."""
        try:
            import pandas
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("Rows.to_pandas() needs pandas: pip install pandas") from e
        return pandas.DataFrame.from_records(self._tuples, columns=self.columns)

    def __repr__(self) -> str:
        return f"Rows(columns={self.columns!r}, rows={list.__repr__(self)})"
