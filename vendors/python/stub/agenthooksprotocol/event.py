"""Self-test stand-in: generated inputs are keyword dictionaries, as the SDK's are."""


class _Input(dict):
    def __init__(self, **kw):
        super().__init__(kw)


Harness = SessionStartInput = SessionEndInput = ToolBeforeInput = ToolAfterInput = _Input
