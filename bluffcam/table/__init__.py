"""The Table: the one place run-time game state lives, and the parts it is made of."""

from bluffcam.table.errors import TableError
from bluffcam.table.reveal_records import PendingReview
from bluffcam.table.table import IllegalActionError, Table

__all__ = ["IllegalActionError", "PendingReview", "Table", "TableError"]
