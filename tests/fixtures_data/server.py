"""A small HTTP mirror on 127.0.0.1 for the fetch tests (stops by itself after a while).

Paths: ``/good/<name>`` serves ``root/<name>`` with Range support; ``/missing/...`` answers 404;
``/error/...`` answers 503; ``/cut/<name>`` sends the headers and half of the body of the first
request for each file, then drops the connection (later requests are served normally, Range
included); ``/always-cut/<name>`` does that on every request. Every request's path and Range
header is recorded in ``requests``.
"""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote


class MirrorServer:
    def __init__(self, root: Path, lifetime: float = 120.0):
        self.root = Path(root)
        self.requests: list[tuple[str, str | None]] = []
        self.cut_done: set[str] = set()
        handler = self._handler()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        # Bounded: whatever happens in a test, the server goes away after `lifetime` seconds.
        self.watchdog = threading.Timer(lifetime, self.stop)
        self.watchdog.daemon = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> MirrorServer:
        self.thread.start()
        self.watchdog.start()
        return self

    def stop(self) -> None:
        self.watchdog.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> MirrorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 10

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                server.requests.append((self.path, self.headers.get("Range")))
                _, mode, name = self.path.split("/", 2)
                name = unquote(name)
                if mode == "missing":
                    return self.send_error(404)
                if mode == "error":
                    return self.send_error(503)
                path = server.root / name
                if not path.is_file():
                    return self.send_error(404)
                data = path.read_bytes()
                etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
                start = 0
                rng = self.headers.get("Range")
                if_range = self.headers.get("If-Range")
                if rng and (if_range is None or if_range == etag):
                    start = int(rng.split("=")[1].split("-")[0])
                    if start >= len(data):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(data)}")
                        self.end_headers()
                        return None
                body = data[start:]
                self.send_response(206 if start else 200)
                if start:
                    self.send_header("Content-Range",
                                     f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", etag)
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                if mode == "always-cut" or (mode == "cut" and name not in server.cut_done):
                    server.cut_done.add(name)
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return None
                self.wfile.write(body)
                return None

        return Handler
