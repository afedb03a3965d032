"""The harness adapter (docs/harness-adapter.md, contracts 1 and 2) over the official AHP Python SDK.

The SDK's public harness is `agenthooksprotocol.Hooks`. This adapter adds no protocol logic:
it loads the contract's registration with `Hooks(...)` (the SDK validates it), runs each
scenario step through the SDK's named boundaries (`session_start`, `tool_before`,
`tool_after`, `session_end`, and for contract 2 content steps the content boundaries such as
`user_message_inbound`), and plays the *host*: the sentinel tool and receivers (markers), the
host's own policy (`host`), the upload callback the SDK asks a host for, and the report.
Whatever crosses the wire, and how answers, edits, views, failures and deadlines are settled,
is the SDK's.

  python harness_adapter.py --config <path>      (the path is also in AHP_ADAPTER_CONFIG)
"""

import json
import os
import sys
import uuid

from collections.abc import Mapping

import anyio
from agenthooksprotocol import Attachment, Hooks, Permission, Session, capability, event
from agenthooksprotocol.transports.http import HTTPTransport

# The identity the SDK writes on every event (not the adapter's).
HARNESS = {"name": "agenthooksprotocol-python", "version": "0.10.1"}
SOURCE = "urn:ahp-conformance:vendor:python-sdk-harness"


def host_capabilities() -> capability.HostCapabilities:
    # What this host enforces: deny and input edits (replace and merge) on tool.before, and
    # observation of the events the scenarios use. At the content boundaries (contract 2):
    # deny where the event has one, and both edit operations of the boundary's own target;
    # the elicitation result also names the form mode, without which the SDK admits no edit
    # of an MCP answer.
    both = capability.Modify.REPLACE_AND_MERGE
    return capability.HostCapabilities(
        tool_before=capability.ToolBeforeCapabilities(
            intercept=capability.ToolBeforeIntercept(
                allow=True, deny=True, modify_input=capability.Modify.REPLACE_AND_MERGE
            ),
            observe=True,
        ),
        tool_after=capability.ToolAfterCapabilities(
            intercept=capability.ToolAfterIntercept(modify_output=both), observe=True
        ),
        session_start=capability.SessionStartCapabilities(observe=True),
        session_end=capability.SessionEndCapabilities(observe=True),
        user_message_inbound=capability.UserMessageInboundCapabilities(
            intercept=capability.UserMessageInboundIntercept(deny=True, modify_prompt=both),
            observe=True,
        ),
        user_message_outbound=capability.UserMessageOutboundCapabilities(
            intercept=capability.UserMessageOutboundIntercept(deny=True, modify_content=both),
            observe=True,
        ),
        model_request_before=capability.ModelRequestBeforeCapabilities(
            intercept=capability.ModelRequestBeforeIntercept(deny=True, modify_request=both),
            observe=True,
        ),
        model_response_after=capability.ModelResponseAfterCapabilities(
            intercept=capability.ModelResponseAfterIntercept(modify_response=both),
            observe=True,
        ),
        context_compact_before=capability.ContextCompactBeforeCapabilities(
            intercept=capability.ContextCompactBeforeIntercept(
                deny=True, modify_instructions=both
            ),
            observe=True,
        ),
        context_compact_after=capability.ContextCompactAfterCapabilities(
            intercept=capability.ContextCompactAfterIntercept(modify_summary=both),
            observe=True,
        ),
        user_elicitation_request=capability.UserElicitationRequestCapabilities(
            intercept=capability.UserElicitationRequestIntercept(deny=True), observe=True
        ),
        user_elicitation_result=capability.UserElicitationResultCapabilities(
            intercept=capability.UserElicitationResultIntercept(
                modify_content=both, elicitation=capability.Elicitation.FORM
            ),
            observe=True,
        ),
        workspace_change_before=capability.WorkspaceChangeBeforeCapabilities(
            intercept=capability.WorkspaceChangeBeforeIntercept(
                deny=True, modify_workspace=both
            ),
            observe=True,
        ),
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
        elif kind in CONTENT_STEPS:
            await self.content(step)
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


    def uploaders(self) -> dict:
        """The upload callbacks this host authorizes: one per hook whose subscription carries
        an upload binding, posting through the SDK's HTTP transport to that exact endpoint
        (with the binding's own bearer token, if any; never the event endpoint's)."""
        out = {}
        for hook in self.config.get("registration", {}).get("hooks", []):
            for sub in hook.get("subscriptions", []):
                binding = sub.get("upload")
                if isinstance(binding, dict) and hook.get("id") not in out:
                    out[hook["id"]] = self.uploader(binding)
        return out

    def uploader(self, binding: dict):
        endpoint = binding["endpoint"]
        headers = {}
        auth = binding.get("auth") or {}
        if auth.get("type") == "bearer" and auth.get("tokenEnv") in os.environ:
            headers["Authorization"] = f"Bearer {os.environ[auth['tokenEnv']]}"

        async def upload(data: bytes) -> dict:
            transport = HTTPTransport(endpoint)
            try:
                receipt = await transport.upload(endpoint, data, headers=headers)
            finally:
                await transport.aclose()
            return plain(receipt)

        return upload

    async def content(self, step: dict) -> None:
        kind, sid = step["kind"], step["id"]
        session = dict(self.session)
        extra: dict = {}
        if kind in ("user.message.inbound", "user.message.outbound"):
            message = dict(step["message"])
            message["messages"] = host_messages(message.get("messages", []))
            payload = {"session": session, "message": message}
            effective = lambda e: e["message"]["messages"]  # noqa: E731
            if kind == "user.message.inbound":
                uploads = self.uploaders()
                if uploads:
                    extra["uploads"] = uploads
        elif kind in ("model.request", "model.response"):
            model = {"id": step["model"]["id"], "provider": step["model"].get("provider") or "sentinel"}
            payload = {
                "session": session,
                "model": model,
                "attempt": {"id": f"{sid}.attempt-1", "number": 1},
                "items": host_messages(step["messages"]),
            }
            if kind == "model.request":
                payload["params"] = {}
            else:
                payload.update(execution={"status": "executed"}, finishReason="stop")
            effective = lambda e: e["items"]  # noqa: E731
        elif kind == "tool.output":
            # The sentinel tool runs (no tool.before subscription in these runs) and its
            # output is the step's: the sentinel model receives the settled tool.after items.
            tool = step["tool"]
            payload = {
                "session": session,
                "outcome": "ok",
                "execution": {"status": "executed"},
                "call": {"id": f"call-{sid}-{uuid.uuid4().hex[:8]}"},
                "tool": {"name": tool["name"], "input": tool.get("input", {}), "origin": "native"},
                "path": tool["name"],
                "items": host_messages(step["output"]),
            }
            effective = lambda e: e["items"]  # noqa: E731
        elif kind == "context.compact.before":
            payload = {
                "session": session,
                "trigger": "manual",
                "items": host_messages(step.get("items", [])),
                "instructions": host_parts(step["instructions"]),
            }
            effective = lambda e: e["instructions"]  # noqa: E731
        elif kind == "context.compact.after":
            payload = {
                "session": session,
                "summary": host_parts(step["summary"]),
                "removed": [{"id": r["id"]} for r in step.get("removed", [])],
                "execution": {"status": "executed"},
            }
            effective = lambda e: e["summary"]  # noqa: E731
        elif kind == "user.elicitation.request":
            e = step["elicitation"]
            payload = {
                "session": session,
                "elicitation": {
                    "server": e["server"],
                    "mode": e["mode"],
                    "request": json_text_part(sid, e["request"]),
                },
            }
            effective = lambda ev: json.loads(ev["elicitation"]["request"]["text"])  # noqa: E731
        elif kind == "user.elicitation.result":
            e = step["elicitation"]
            result = e["result"]
            # The SDK binds a result to the request it answers (parentEventId, same source
            # and session) and validates the answer against that request's form. The host
            # asked it earlier; this is its snapshot, sent to nobody here.
            request_id = f"{sid}.request-{uuid.uuid4().hex[:8]}"
            request_event = {
                "id": request_id,
                "source": SOURCE,
                "harness": HARNESS,
                "type": "user.elicitation.request",
                "time": "2025-01-01T00:00:00Z",
                "session": session,
                "elicitation": {
                    "server": e["server"],
                    "mode": e["mode"],
                    "request": json_text_part(
                        f"{sid}.request",
                        {
                            "mode": e["mode"],
                            "message": "The sentinel form",
                            "requestedSchema": answer_schema(result.get("content", {})),
                        },
                    ),
                },
            }
            extra["original_request"] = {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "hooks/intercept",
                "params": {
                    "protocolVersion": self.config["registration"].get("protocolVersion", "draft"),
                    "event": request_event,
                    "capabilities": {"effects": ["deny"]},
                    "state": {"permission": "none", "candidate": None},
                },
            }
            payload = {
                "session": session,
                "parentEventId": request_id,
                "elicitation": {
                    "server": e["server"],
                    "mode": e["mode"],
                    "action": e["action"],
                    "result": json_text_part(sid, result),
                },
            }
            effective = lambda ev: json.loads(ev["elicitation"]["result"]["text"])  # noqa: E731
        elif kind == "workspace.change":
            w = step["workspace"]
            payload = {"session": session, "workspace": {k: w[k] for k in ("kind", "change", "prior") if k in w}}
            effective = lambda e: e["workspace"]["change"]  # noqa: E731
        else:
            raise ValueError(f"unknown content step kind {kind!r}")

        entry = {"id": sid}
        result = await getattr(self.hooks, CONTENT_STEPS[kind])(payload, **extra)
        async with result:
            if failure_denied(result):
                entry["outcome"] = "denied-by-failure-policy"
            elif result.permission == Permission.DENY:
                entry["outcome"] = "denied-by-backend"
                reason = deny_reason(result)
                if reason:
                    entry["reason"] = reason
            else:
                entry["outcome"] = "delivered"
                # The receiver records what it really gets: the settled event's value.
                value = effective(plain(result.event))
                tmp = step["marker"] + ".tmp"
                with open(tmp, "w", encoding="utf-8") as marker:
                    json.dump({"effective": value}, marker)
                os.replace(tmp, step["marker"])
        self.outcomes.append(entry)

# Contract 2 content step kinds: the SDK's named boundary each one calls.
CONTENT_STEPS = {
    "user.message.inbound": "user_message_inbound",
    "user.message.outbound": "user_message_outbound",
    "model.request": "model_request_before",
    "model.response": "model_response_after",
    "tool.output": "tool_after",
    "context.compact.before": "context_compact_before",
    "context.compact.after": "context_compact_after",
    "user.elicitation.request": "user_elicitation_request",
    "user.elicitation.result": "user_elicitation_result",
    "workspace.change": "workspace_change_before",
}


def plain(value):
    """An SDK facade value (read-only mappings) as plain JSON data."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def json_text_part(step_id: str, value) -> dict:
    # An MCP payload travels as one body text part holding its JSON text (the SDK parses it).
    return {
        "id": f"{step_id}.p1",
        "kind": "text",
        "mediaType": "text/plain",
        "selection": "body",
        "text": json.dumps(value),
    }


def inline_media(media_type: str) -> bool:
    """Text and JSON are never uploaded (contract section 10): they travel as text."""
    base = media_type.split(";")[0].strip().lower()
    return base.startswith("text/") or base == "application/json" or base.endswith("+json")


def host_parts(parts: list) -> list:
    """The host's own parts: a file attachment becomes an SDK-owned Attachment (media) or
    a text part (text and JSON); everything else is passed through as given."""
    out = []
    for part in parts:
        if part.get("kind") == "attachment" and isinstance(part.get("file"), str):
            with open(part["file"], "rb") as file:
                data = file.read()
            if inline_media(part.get("mediaType", "")):
                out.append(
                    {
                        "id": part["id"],
                        "kind": "text",
                        "mediaType": "text/plain",
                        "selection": "body",
                        "text": data.decode("utf-8"),
                    }
                )
            else:
                out.append(
                    {
                        "id": part["id"],
                        "kind": "attachment",
                        "mediaType": part["mediaType"],
                        "selection": "body",
                        "body": Attachment.from_bytes(data),
                    }
                )
        else:
            out.append(part)
    return out


def host_messages(messages: list) -> list:
    return [{**m, "parts": host_parts(m.get("parts", []))} for m in messages]


def answer_schema(content: dict) -> dict:
    """The form the host's MCP server asked for, as the host knows it: one property per
    answered field, of the answer's JSON type (the contract step carries the answer only)."""
    types = {bool: "boolean", int: "number", float: "number", str: "string"}
    props = {k: {"type": types.get(type(v), "string")} for k, v in content.items()}
    return {"type": "object", "properties": props}


def write_report(path: str, report: dict, contract: int = 1) -> None:
    with open(path, "w", encoding="utf-8") as file:
        json.dump({"adapterContract": contract, "harness": HARNESS, **report}, file)


async def main(config_path: str) -> int:
    with open(config_path, encoding="utf-8") as file:
        config = json.load(file)
    contract = 2 if config.get("adapterContract") == 2 else 1
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
            contract,
        )
        return 1
    async with hooks:
        host = Host(config, hooks)
        try:
            await host.run(config.get("scenario", {}).get("steps", []))
        finally:
            write_report(
                config["report"], {"registration": "accepted", "steps": host.outcomes}, contract
            )
    return 0


def config_path(argv: list[str]) -> str:
    if "--config" in argv:
        return argv[argv.index("--config") + 1]
    return os.environ["AHP_ADAPTER_CONFIG"]


if __name__ == "__main__":
    sys.exit(anyio.run(main, config_path(sys.argv[1:])))
