"""The harness adapter (docs/harness-adapter.md, contract 1) over the official AHP Python SDK.

The SDK's public harness is `agenthooksprotocol.Hooks`. This adapter adds no protocol logic:
it loads the contract's registration with `Hooks(...)` (the SDK validates it), runs each
scenario step through the SDK's named boundaries (`session_start`, `tool_before`,
`tool_after`, `session_end`), and plays the *host*: the sentinel tool, the host's own policy
(`host`), and the report. Whatever crosses the wire, and how answers, failures and
deadlines are settled, is the SDK's.

  python harness_adapter.py --config <path>      (the path is also in AHP_ADAPTER_CONFIG)
"""

import json
import os
import sys
import uuid

import anyio
from agenthooksprotocol import Hooks, Permission, Session, capability, event

# The identity the SDK writes on every event (not the adapter's).
HARNESS = {"name": "agenthooksprotocol-python", "version": "0.10.1"}
SOURCE = "urn:ahp-conformance:vendor:python-sdk-harness"


def host_capabilities() -> capability.HostCapabilities:
    # What this host enforces: deny and input edits (replace and merge) on tool.before, and
    # observation of the events the scenarios use.
    return capability.HostCapabilities(
        tool_before=capability.ToolBeforeCapabilities(
            intercept=capability.ToolBeforeIntercept(
                allow=True, deny=True, modify_input=capability.Modify.REPLACE_AND_MERGE
            ),
            observe=True,
        ),
        tool_after=capability.ToolAfterCapabilities(observe=True),
        session_start=capability.SessionStartCapabilities(observe=True),
        session_end=capability.SessionEndCapabilities(observe=True),
    )


def deny_reason(result) -> str | None:
    """The reason of the accepted deny effect, as the SDK settled it."""
    for response in result.accepted_responses or ():
        body = response.get("result", response) if isinstance(response, dict) else {}
        for item in body.get("effects", []) or []:
            if isinstance(item, dict) and item.get("type") == "deny":
                return item.get("reason")
    return None


def failure_denied(result) -> bool:
    """True when the SDK denied the call itself (fail-closed), not a backend's deny."""
    return any(d.get("synthetic_denial") for d in (result.diagnostics or ()))


class Host:
    def __init__(self, config: dict, hooks: Hooks):
        self.config = config
        self.hooks = hooks
        self.sentinel = config.get("sentinel", {}).get("tool")
        scenario = config.get("scenario", {})
        self.session = {"id": scenario.get("session", {}).get("id", "s-1")}
        cwd = scenario.get("session", {}).get("cwd")
        if cwd:
            self.session["cwd"] = cwd
        self.outcomes: list[dict] = []

    async def run(self, steps: list) -> None:
        for step in steps:
            await self.step(step)

    async def step(self, step: dict) -> None:
        kind = step.get("kind")
        if kind == "session.start":
            await self.hooks.session_start(
                event.SessionStartInput(
                    session=Session(**self.session),
                    trigger="startup",
                    permission_mode="default",
                    items=[],
                )
            )
        elif kind == "session.end":
            outcome = step.get("outcome", "completed")
            await self.hooks.session_end(
                event.SessionEndInput(
                    session=Session(**self.session), outcome=outcome, reason=outcome
                )
            )
        elif kind == "parallel":
            async with anyio.create_task_group() as group:
                for sub in step.get("steps", []):
                    group.start_soon(self.step, sub)
        elif kind == "tool":
            await self.tool(step)
        else:
            raise ValueError(f"unknown step kind {kind!r}")

    async def tool(self, step: dict) -> None:
        tool = step["tool"]
        name = tool["name"]
        call_id = f"call-{step['id']}-{uuid.uuid4().hex[:8]}"
        facts = dict(call_id=call_id, name=name, path=name, origin="native")
        result = await self.hooks.tool_before(
            event.ToolBeforeInput(input=tool.get("input", {}), **facts)
        )
        entry = {"id": step["id"]}
        executed_input = result.input
        if result.permission == Permission.DENY:
            if failure_denied(result):
                entry["outcome"] = "denied-by-failure-policy"
            else:
                entry["outcome"] = "denied-by-backend"
                reason = deny_reason(result)
                if reason:
                    entry["reason"] = reason
        elif step.get("host", "allow") != "allow" or name != self.sentinel:
            # The host's own policy runs after the interceptors; AHP never widens it
            # (an `ask` from a backend is refused like the simulated user does).
            entry["outcome"] = "denied-by-host"
        elif result.permission == Permission.ASK:
            entry["outcome"] = "denied-by-host"
        else:
            entry["outcome"] = "executed"
            with open(step["marker"], "w", encoding="utf-8") as marker:
                json.dump({"executedInput": executed_input}, marker)
        self.outcomes.append(entry)
        ran = entry["outcome"] == "executed"
        await self.hooks.tool_after(
            event.ToolAfterInput(
                input=executed_input if ran else tool.get("input", {}),
                outcome="ok" if ran else "denied",
                execution={"status": "executed"}
                if ran
                else {"status": "skipped", "reason": "policy"},
                items=[],
                **facts,
            )
        )


def write_report(path: str, report: dict) -> None:
    with open(path, "w", encoding="utf-8") as file:
        json.dump({"adapterContract": 1, "harness": HARNESS, **report}, file)


async def main(config_path: str) -> int:
    with open(config_path, encoding="utf-8") as file:
        config = json.load(file)
    try:
        hooks = Hooks(
            config["registration"],
            source=SOURCE,
            harness=event.Harness(**HARNESS),
            capabilities=host_capabilities(),
        )
    except Exception as exc:  # the SDK refused the registration
        write_report(
            config["report"],
            {"registration": "rejected", "rejectionReason": f"{type(exc).__name__}: {exc}"},
        )
        return 1
    async with hooks:
        host = Host(config, hooks)
        try:
            await host.run(config.get("scenario", {}).get("steps", []))
        finally:
            write_report(config["report"], {"registration": "accepted", "steps": host.outcomes})
    return 0


def config_path(argv: list[str]) -> str:
    if "--config" in argv:
        return argv[argv.index("--config") + 1]
    return os.environ["AHP_ADAPTER_CONFIG"]


if __name__ == "__main__":
    sys.exit(anyio.run(main, config_path(sys.argv[1:])))
