"""Self-test stand-in: capability declarations are recorded as given."""

import enum


class Modify(enum.Enum):
    REPLACE = "replace"
    MERGE = "merge"
    REPLACE_AND_MERGE = "replace_and_merge"


class Elicitation(enum.Enum):
    FORM = "form"
    URL = "url"


class _Declaration(dict):
    def __init__(self, **kw):
        super().__init__(kw)


HostCapabilities = _Declaration


def __getattr__(name):
    # Every per-event declaration (`...Capabilities`, `...Intercept`) is a recorded dictionary.
    if name.endswith(("Capabilities", "Intercept")):
        return _Declaration
    raise AttributeError(name)
