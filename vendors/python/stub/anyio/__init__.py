"""The two anyio calls the adapter makes, over asyncio (self-test stand-in)."""

import asyncio


def run(func, *args):
    return asyncio.run(func(*args))


class _TaskGroup:
    async def __aenter__(self):
        self._tasks = []
        return self

    def start_soon(self, func, *args):
        self._tasks.append(asyncio.ensure_future(func(*args)))

    async def __aexit__(self, *exc):
        await asyncio.gather(*self._tasks)


def create_task_group():
    return _TaskGroup()
