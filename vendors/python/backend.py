"""A policy backend built on the official AHP Python SDK (PyPI agenthooksprotocol).

The policy is the SDK's typical one (its README and examples): deny a dangerous tool,
rewrite the input of another, observe lifecycle events. Everything protocol-shaped
(framing, correlation, validation, replies) is the SDK's own: this file only states the
policy and picks the SDK transport.

  python backend.py stdio          the SDK's AnyIO stdio server (persistent and per_event:
                                   it serves until end of input, then exits)
  python backend.py http --port N  the SDK's ASGI app under uvicorn on 127.0.0.1:N
"""

import argparse
import sys

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


def observe(ctx: hooks.AnyObserveContext) -> None:
    # Observation is one-way: record to stderr, never to stdout (the stdio frame stream).
    print(f"observed {ctx.raw.get('params', {}).get('event', {}).get('type')}", file=sys.stderr)


def handlers() -> hooks.Handlers:
    return hooks.Handlers(
        intercept=hooks.InterceptHandlers(tool_before=before),
        observe=hooks.ObserveHandlers(any=observe),
    )


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
        from agenthooksprotocol.server import asgi

        uvicorn.run(asgi.App(handlers()), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
