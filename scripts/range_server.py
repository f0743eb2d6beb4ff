"""A plain HTTP/1.1 file server with Range support, for the remote tests and benchmarks.

    python3 scripts/range_server.py DIR

serves the files under DIR on a free loopback port, prints the port on stdout once it
listens, and exits when its parent process does. GET and HEAD; one byte range per request
(`bytes=a-b`, `bytes=a-`, `bytes=-n`) answered 206 with Content-Range, 416 when it is not
satisfiable; ETag (size and mtime) and Last-Modified on every response, `If-Match` honoured
(412). The body is sent with os.sendfile. Python's own http.server has no Range support,
which object_store's HTTP store needs.
"""

import email.utils
import http.server
import os
import socketserver
import sys
import threading
import time
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes on a kept-alive connection: without this,
    # Nagle's algorithm holds the body until the client's delayed ACK of the headers (about
    # 40 ms a request), which no object store does.
    disable_nagle_algorithm = True
    root = "."

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.serve(body=False)

    def do_GET(self):
        self.serve(body=True)

    def serve(self, body):
        rel = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/")
        path = os.path.realpath(os.path.join(self.root, rel))
        if not path.startswith(self.root + os.sep) or not os.path.isfile(path):
            return self.empty(404)
        st = os.stat(path)
        size = st.st_size
        etag = '"%x-%x"' % (size, st.st_mtime_ns)
        if self.headers.get("If-Match") not in (None, "*", etag):
            return self.empty(412)
        start, end, status = 0, size, 200
        spec = self.headers.get("Range")
        if spec:
            unit, _, rng = spec.partition("=")
            first, _, last = rng.partition("-")
            try:
                if unit.strip() != "bytes" or "," in rng:
                    raise ValueError
                if first == "":
                    start, end = max(0, size - int(last)), size
                else:
                    start = int(first)
                    end = size if last == "" else min(size, int(last) + 1)
            except ValueError:
                return self.empty(400)
            if start >= size or start >= end:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
        self.send_response(status)
        self.send_header("Content-Length", str(end - start))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", email.utils.formatdate(st.st_mtime, usegmt=True))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end - 1, size))
        self.end_headers()
        if not body:
            return
        self.wfile.flush()
        with open(path, "rb") as f:
            offset, left = start, end - start
            while left > 0:
                sent = os.sendfile(self.connection.fileno(), f.fileno(), offset, left)
                if sent == 0:
                    break
                offset += sent
                left -= sent

    def empty(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 64


def main():
    Handler.root = os.path.realpath(sys.argv[1])
    server = Server(("127.0.0.1", 0), Handler)
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
