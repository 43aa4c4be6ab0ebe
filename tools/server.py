"""One static server for the built site, shared by the tests and `make bench`.

It serves the site as GitHub Pages does: gzip for text, 404.html for missing paths, and
connections kept alive, so Lighthouse and the browser tests see what readers get.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import re
import socket
import socketserver
import sys
import threading
from pathlib import Path

#: Files served gzip-compressed, as a static host would.
TEXT_SUFFIXES = {".html", ".css", ".js", ".svg", ".json", ".txt", ".xml", ".md", ".csv", ".map"}


class _GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site as GitHub Pages does: gzip for text, 404.html for missing paths, and
    connections kept alive (Pages speaks HTTP/2; HTTP/1.0 would cost Lighthouse a handshake per file)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # the stock redirect to the slash URL
            path = path / "index.html"
        status = 200
        if not path.is_file():
            path, status = Path(self.directory) / "404.html", 404
        ctype = self.guess_type(str(path))
        gz = "gzip" in self.headers.get("Accept-Encoding", "") and path.suffix in TEXT_SUFFIXES
        if self.server.local_sitemap and status == 200 and self.path.split("?")[0] == "/sitemap.xml":
            xml = localized_sitemap(path.read_text(encoding="utf-8"), self.server.base).encode()
            data = gzip.compress(xml, mtime=0) if gz else xml
        else:
            stat = path.stat()
            data = served_bytes(str(path), stat.st_mtime_ns, stat.st_size, gz)
        self.send_response(status)
        self.send_header("Content-Type", ctype + ("; charset=utf-8" if ctype.startswith("text/") else ""))
        if gz:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "max-age=600")  # what GitHub Pages sends
        self.end_headers()
        return io.BytesIO(data)


def localized_sitemap(sitemap: str, base: str) -> str:
    """The built sitemap with the local address `base` where it names the published one, as Pages serves
    it with its own: Material's instant navigation acts only on the addresses its sitemap names, so a
    browser served the published sitemap here never navigated instantly, as readers do."""
    locs = re.findall(r"<loc>\s*(.*?)\s*</loc>", sitemap)
    if not locs:  # names no address: nothing to move
        return sitemap
    published = min(locs, key=len)  # the home page: the site's address
    return sitemap.replace(published, base)


@functools.lru_cache(maxsize=1024)  # keyed by the file's time and size: a rebuilt file is read again
def served_bytes(path: str, mtime_ns: int, size: int, gz: bool) -> bytes:
    """A file's bytes as served, gzip-compressed where `gz`: compressed once, not on every request (the
    browser tests load about 450 pages, each HTML page 100-400 KB before compression)."""
    data = Path(path).read_bytes()
    return gzip.compress(data, compresslevel=6, mtime=0) if gz else data


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    local_sitemap, base = False, ""

    def handle_error(self, request, client_address):
        # A browser closing a kept-alive connection is not an error worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(site_dir: Path, port: int = 0, *, local_sitemap: bool = False):
    """Serve `site_dir` on 127.0.0.1 (gzip, Pages-style 404); yields the base URL with a trailing slash.
    With `local_sitemap`, sitemap.xml names this address, not the published one (localized_sitemap)."""
    server = _Server(("127.0.0.1", port), functools.partial(_GzipHandler, directory=str(site_dir)))
    server.local_sitemap, server.base = local_sitemap, f"http://127.0.0.1:{server.server_address[1]}/"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.base
    finally:
        server.shutdown()
        server.server_close()
