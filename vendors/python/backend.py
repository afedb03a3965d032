"""A policy backend built on the official AHP Python SDK (PyPI agenthooksprotocol).

The policy is the SDK's typical one (its README and examples): deny a dangerous tool,
rewrite the input of another, observe lifecycle events, and at the content boundaries append
the policy's own note to content it can read (the README's merge helpers: `merge_prompt`,
`merge_instructions`, `merge_workspace`, `merge_content_form`, ...). Which edits a request
allows is the SDK engine's to enforce (it checks every reply against the request's grants). Everything protocol-shaped
(framing, correlation, validation, replies) is the SDK's own: this file only states the
policy and picks the SDK transport.

  python backend.py stdio          the SDK's AnyIO stdio server (persistent and per_event:
                                   it serves until end of input, then exits)
  python backend.py http --port N  the SDK's ASGI app under uvicorn on 127.0.0.1:N
"""

import argparse
import json
import sys

from agenthooksprotocol import _models as models  # the typed values effect helpers take
from agenthooksprotocol import effect
from agenthooksprotocol.server import hooks

DANGEROUS_TOOLS = {"rm_rf"}
REWRITTEN_TOOLS = {"write_file"}


def before(ctx: hooks.ToolBeforeContext) -> hooks.ToolBeforeReply:
    name = ctx.event.tool.name
    if name in DANGEROUS_TOOLS:
        return hooks.ToolBeforeReply(
            effects=(effect.DenyEffect(reason=f"{name} is never allowed"),)
        )
    if name in REWRITTEN_TOOLS:
        # The SDK's README pattern: a merge edit of the tool input.
        return hooks.ToolBeforeReply(effects=(hooks.MergeInput({"mode": "0644"}),))
    return hooks.ToolBeforeReply()


NOTE = "Checked by the policy backend."


def event_of(ctx) -> dict:
    return ctx.raw["params"]["event"]


def readable(parts) -> bool:
    # The policy edits only content it was sent in full (a metadata or omit view hides it).
    return bool(parts) and all(p.get("selection") == "body" for p in parts)


def note_messages(messages: list, tag: str) -> list | None:
    """One message of the list's own role carrying the note, if the list is readable."""
    if not messages or not all(readable(m.get("parts", [])) for m in messages):
        return None
    return [
        models.CanonicalMessage.from_dict({
            "id": f"policy-{tag}",
            "role": messages[-1]["role"],
            "parts": [
                {"id": f"policy-{tag}.p1", "kind": "text", "mediaType": "text/plain", "selection": "body", "text": NOTE}
            ],
        })
    ]


def note_parts(parts: list, tag: str) -> list | None:
    if not readable(parts):
        return None
    return [
        models.TextBodyPart.from_dict(
            {"id": f"policy-{tag}", "kind": "text", "mediaType": "text/plain", "selection": "body", "text": NOTE}
        )
    ]


def inbound(ctx: hooks.UserMessageInboundContext) -> hooks.UserMessageInboundReply:
    value = note_messages(event_of(ctx)["message"]["messages"], "inbound")
    return hooks.UserMessageInboundReply(effects=(effect.merge_prompt(value),) if value else ())


def outbound(ctx: hooks.UserMessageOutboundContext) -> hooks.UserMessageOutboundReply:
    value = note_messages(event_of(ctx)["message"]["messages"], "outbound")
    return hooks.UserMessageOutboundReply(effects=(effect.merge_content(value),) if value else ())


def model_request(ctx: hooks.ModelRequestBeforeContext) -> hooks.ModelRequestBeforeReply:
    value = note_messages(event_of(ctx)["items"], "request")
    return hooks.ModelRequestBeforeReply(effects=(effect.merge_request(value),) if value else ())


def model_response(ctx: hooks.ModelResponseAfterContext) -> hooks.ModelResponseAfterReply:
    value = note_messages(event_of(ctx)["items"], "response")
    return hooks.ModelResponseAfterReply(effects=(effect.merge_response(value),) if value else ())


def tool_output(ctx: hooks.ToolAfterContext) -> hooks.ToolAfterReply:
    value = note_messages(event_of(ctx)["items"], "output")
    return hooks.ToolAfterReply(effects=(effect.merge_output(value),) if value else ())


def compact_before(ctx: hooks.ContextCompactBeforeContext) -> hooks.ContextCompactBeforeReply:
    value = note_parts(event_of(ctx)["instructions"], "instructions")
    return hooks.ContextCompactBeforeReply(
        effects=(effect.merge_instructions(value),) if value else ()
    )


def compact_after(ctx: hooks.ContextCompactAfterContext) -> hooks.ContextCompactAfterReply:
    value = note_parts(event_of(ctx)["summary"], "summary")
    return hooks.ContextCompactAfterReply(effects=(effect.merge_summary(value),) if value else ())


def elicitation_result(ctx: hooks.UserElicitationResultContext) -> hooks.UserElicitationResultReply:
    # The policy normalises an accepted form's string answers (trimmed), when it can read them.
    part = event_of(ctx)["elicitation"].get("result", {})
    if part.get("selection") != "body":
        return hooks.UserElicitationResultReply()
    answer = json.loads(part["text"])
    content = answer.get("content") if answer.get("action") == "accept" else None
    strings = {k: v.strip() + " (checked)" for k, v in (content or {}).items() if isinstance(v, str)}
    if not strings:
        return hooks.UserElicitationResultReply()
    return hooks.UserElicitationResultReply(effects=(effect.merge_content_form(strings),))


def workspace(ctx: hooks.WorkspaceChangeBeforeContext) -> hooks.WorkspaceChangeBeforeReply:
    # The policy pins the workspace roots to the new cwd, when it can see the change.
    change = event_of(ctx)["workspace"].get("change")
    if not isinstance(change, dict) or not isinstance(change.get("cwd"), str):
        return hooks.WorkspaceChangeBeforeReply()
    return hooks.WorkspaceChangeBeforeReply(
        effects=(effect.merge_workspace(models.WorkspaceChange.from_dict({"workspaceRoots": [change["cwd"]]})),)
    )


def observe(ctx: hooks.AnyObserveContext) -> None:
    # Observation is one-way: record to stderr, never to stdout (the stdio frame stream).
    print(f"observed {ctx.raw.get('params', {}).get('event', {}).get('type')}", file=sys.stderr)


def handlers() -> hooks.Handlers:
    return hooks.Handlers(
        intercept=hooks.InterceptHandlers(
            tool_before=before,
            user_message_inbound=inbound,
            user_message_outbound=outbound,
            model_request_before=model_request,
            model_response_after=model_response,
            tool_after=tool_output,
            context_compact_before=compact_before,
            context_compact_after=compact_after,
            user_elicitation_result=elicitation_result,
            workspace_change_before=workspace,
        ),
        observe=hooks.ObserveHandlers(any=observe),
    )


UPLOAD_PATH = "/uploads"
UPLOAD_MAX_BYTES = 65536


class MemoryStorage:
    """The receiver's storage (the SDK leaves it to the application): immutable, in memory."""

    def __init__(self) -> None:
        self.blobs: dict[str, tuple[object, bytes]] = {}

    async def commit(self, *, scope: object, ref: str, data: bytes) -> None:
        if ref in self.blobs:
            raise ValueError("references are never replaced")
        self.blobs[ref] = (scope, data)


def http_app():
    """The SDK's ASGI hooks app, and beside it at /uploads the SDK's upload receiver
    (server.attachments.App), which authorizes with its own bearer token (PY_SDK_UPLOAD_TOKEN)."""
    import hmac
    import os

    from agenthooksprotocol.server import asgi, attachments

    token = os.environ.get("PY_SDK_UPLOAD_TOKEN", "")

    async def authorize(header: str | None):
        if token and header is not None and hmac.compare_digest(header, f"Bearer {token}"):
            return 201, "uploader"
        return 401, None

    events = asgi.App(handlers())
    uploads = attachments.App(
        authorize=authorize, storage=MemoryStorage(), max_bytes=UPLOAD_MAX_BYTES
    )

    async def app(scope, receive, send):
        if scope["type"] == "http" and scope.get("path") == UPLOAD_PATH:
            return await uploads(scope, receive, send)
        if scope["type"] == "lifespan":
            return None
        return await events(scope, receive, send)

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.transport == "stdio":
        import anyio
        from agenthooksprotocol.server import serve

        anyio.run(serve, handlers())
    else:
        import uvicorn

        uvicorn.run(http_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
