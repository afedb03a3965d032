"""Self-test stand-in: the HTTP transport the adapter uploads through (unused by the self-tests)."""


class HTTPTransport:
    def __init__(self, endpoint):
        self.endpoint = endpoint

    async def upload(self, endpoint, data, *, headers=None):
        raise NotImplementedError("the stand-in SDK does not upload")

    async def aclose(self):
        pass
