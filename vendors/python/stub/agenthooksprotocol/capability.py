"""Self-test stand-in: capability declarations are recorded as given."""

import enum


class Modify(enum.Enum):
    REPLACE = "replace"
    MERGE = "merge"
    REPLACE_AND_MERGE = "replace_and_merge"


class _Declaration(dict):
    def __init__(self, **kw):
        super().__init__(kw)


HostCapabilities = ToolBeforeCapabilities = ToolBeforeIntercept = _Declaration
ToolAfterCapabilities = SessionStartCapabilities = SessionEndCapabilities = _Declaration
