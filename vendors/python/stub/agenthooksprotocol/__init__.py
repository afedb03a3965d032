"""Self-test stand-in for the SDK: the names the adapter uses, scripted by `input.stub`.

Every boundary call is appended to $STUB_LOG as one JSON line, so the test can see what the
adapter asked the SDK to do.
"""

import enum
import json
import os

from . import capability, event


class Permission(enum.Enum):
    NONE = "none"
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class Attachment:
    """Stand-in: the SDK's immutable media attachment (only contract 2 upload steps make one)."""

    def __init__(self, data):
        self.data = bytes(data)

    @classmethod
    def from_bytes(cls, data):
        return cls(data)


class Session(dict):
    def __init__(self, **kw):
        super().__init__(kw)


def _log(entry):
    with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


class _Result:
    def __init__(self, permission, input, diagnostics=(), accepted=()):
        self.permission = permission
        self.input = input
        self.diagnostics = list(diagnostics)
        self.accepted_responses = list(accepted)


class Hooks:
    def __init__(self, config, *, source, harness, capabilities):
        # The SDK validates at construction; the stand-in refuses what the test marks invalid.
        if not isinstance(config.get("hooks"), list) or any(h.get("invalid") for h in config["hooks"]):
            raise ValueError("invalid registration")
        _log({"call": "construct", "source": source, "harness": dict(harness)})

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        _log({"call": "close"})

    async def session_start(self, input):
        _log({"call": "session_start", "input": input})

    async def session_end(self, input):
        _log({"call": "session_end", "input": input})

    async def tool_after(self, input):
        _log({"call": "tool_after", "input": input})

    async def tool_before(self, input):
        _log({"call": "tool_before", "input": input})
        args = dict(input["input"])
        how = args.get("stub")
        if how == "deny":
            deny = {"type": "deny", "reason": "stub denies"}
            return _Result(Permission.DENY, args, accepted=[{"result": {"effects": [deny]}}])
        if how == "fail-closed":
            return _Result(Permission.DENY, args, diagnostics=[{"synthetic_denial": True}])
        if how == "modify":
            return _Result(Permission.NONE, {**args, "mode": "0644"})
        if how == "ask":
            return _Result(Permission.ASK, args)
        return _Result(Permission.NONE, args)
