"""Every error the tool reports to a user, one class per stage.

The CLI turns any ``InfraGenError`` into one line on stderr and exit code 2; any other
exception is a bug. Hierarchy::

    InfraGenError
    ├── WorkloadError        the workload file: YAML, schema, contradictions (spec.py, loading.py)
    ├── CatalogError         the price catalog: rows, files, refresh, import (catalog/)
    ├── SizingError          no configuration fits the allowed accelerators (sizing.py)
    ├── PlanningError        no feasible offer survives the constraints (optimizer.py)
    ├── RenderError          a plan cannot be rendered for a cloud (providers/)
    └── PolicyConfigError    a policy config file is wrong (policy/)
"""

from __future__ import annotations


class InfraGenError(Exception):
    """Base of every error that is the user's input, not our bug."""


class WorkloadError(InfraGenError):
    """A workload file is unreadable, invalid or contradictory.

    ``str(err)`` is already the one-line ``FILE:LINE:COL: error: FIELD: ...`` message.
    """

    def __init__(
        self, path: str, line: int, col: int, field: str, message: str
    ) -> None:
        self.path = path
        self.line = line
        self.col = col
        self.field = field
        self.message = " ".join(message.split())  # one line, whatever the YAML held
        where = f"{field}: " if field else ""
        super().__init__(f"{path}:{line}:{col}: error: {where}{self.message}")


class CatalogError(InfraGenError):
    """A catalog file or row is wrong, or a refresh/import failed."""


class SizingError(InfraGenError):
    """The workload cannot fit on any allowed accelerator configuration."""


class PlanningError(InfraGenError):
    """No offer in the catalog survives the workload's constraints."""


class RenderError(InfraGenError):
    """A plan cannot be turned into resources for the requested cloud."""


class PolicyConfigError(InfraGenError):
    """A policy configuration file is invalid."""
