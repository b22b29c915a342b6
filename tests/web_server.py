"""A live ``gin-env serve`` for the tests that need a real socket (a browser, a raw websocket client): uvicorn serving
``gin_env.web.app.make_app`` in a background thread on a free loopback port, stopped cleanly on leaving.

The server is started as ``gin-env serve`` starts it (the same websocket size bound), on a socket bound here to port
0 so that the system picks a free port and no two test runs race for one.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

from gin_env.web import serve

#: How long the server may take to start or to stop before the test fails: generous, for 2 busy cores.
START_WAIT_S = 60.0
#: How often the start is checked.
POLL_S = 0.05


@contextlib.contextmanager
def running(config) -> Iterator[str]:
    """Serve ``config`` (a ``gin_env.web.app.ServeConfig``) on the loopback address while the block runs; yields
    the server's base address (``http://127.0.0.1:PORT``). ``RuntimeError`` when uvicorn does not start."""
    import uvicorn

    from gin_env.web import app as web_app

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind((serve.LOOPBACK, 0))
    port = listener.getsockname()[1]
    # The app's lifespan runs the rooms' clock (their timeouts), as under gin-env serve.
    server = uvicorn.Server(uvicorn.Config(web_app.make_app(config), log_level="warning", lifespan="on",
                                           ws_max_size=serve.WS_MAX_BYTES))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True,
                              name=f"gin-env serve :{port}")
    thread.start()
    try:
        # uvicorn says it has started through an attribute; the thread ends early only when it failed to start.
        pause = threading.Event()
        for _ in range(int(START_WAIT_S / POLL_S)):
            if server.started or not thread.is_alive():
                break
            pause.wait(POLL_S)
        if not server.started:
            raise RuntimeError(f"uvicorn did not start on port {port}")
        yield f"http://{serve.LOOPBACK}:{port}"
    finally:
        server.should_exit = True
        thread.join(START_WAIT_S)
        listener.close()
