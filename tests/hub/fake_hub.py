#!/usr/bin/env python3
"""A tiny stand-in for the Hugging Face hub, for gemmad's download tests (stdlib only).

fake_hub.py REPO_DIR REPO_ID COMMIT [--token T] [--drop-after N] [--log FILE]
Serves the files of REPO_DIR as REPO_ID at COMMIT (and branch main):
  GET  /api/models/<repo>/revision/<rev>   -> {"sha": COMMIT, "siblings": [{"rfilename": ...}]}
  HEAD /<repo>/resolve/<rev>/<file>        -> 302 to /cdn/<file> with X-Repo-Commit,
                                              X-Linked-Etag (sha256 of the file), X-Linked-Size
  GET  /<repo>/resolve/<rev>/<file>        -> 302 to /cdn/<file>
  GET  /cdn/<file>                         -> the bytes, honouring "Range: bytes=N-" (206)
--drop-after N: the first GET of each *.safetensors file sends N bytes and closes the connection.
--token T: every request must carry "Authorization: Bearer T", else 401.
Prints the port on the first line of stdout, then serves until killed.
"""
import hashlib
import http.server
import json
import os
import sys


def main():
    repo_dir, repo_id, commit = sys.argv[1:4]
    args = sys.argv[4:]
    token = args[args.index("--token") + 1] if "--token" in args else None
    drop_after = int(args[args.index("--drop-after") + 1]) if "--drop-after" in args else None
    log_path = args[args.index("--log") + 1] if "--log" in args else None
    files = sorted(os.path.relpath(os.path.join(d, f), repo_dir)
                   for d, _, names in os.walk(repo_dir) for f in names)  # subfolders too, as the hub lists them
    dropped = set()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            if log_path:
                with open(log_path, "a") as f:
                    f.write("%s %s range=%s auth=%s\n" % (self.command, self.path,
                            self.headers.get("Range"), self.headers.get("Authorization")))

        def _auth_ok(self):
            if token is None or self.headers.get("Authorization") == "Bearer " + token:
                return True
            self._send(401, b'{"error":"unauthorized"}')
            return False

        def _send(self, code, body=b"", headers=None, head=False):
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _route(self, head):
            self.log_message("")
            if not self._auth_ok():
                return
            p = self.path
            api = "/api/models/%s/revision/" % repo_id
            resolve = "/%s/resolve/" % repo_id
            if p.startswith(api):
                rev = p[len(api):]
                if rev not in ("main", commit):
                    return self._send(404, b'{"error":"revision not found"}')
                body = json.dumps({"sha": commit, "siblings": [{"rfilename": f} for f in files]}).encode()
                return self._send(200, body, {"Content-Type": "application/json"}, head)
            if p.startswith(resolve):
                rev, _, name = p[len(resolve):].partition("/")
                if rev not in ("main", commit) or name not in files:
                    return self._send(404, b"not found", {}, head)
                data = open(os.path.join(repo_dir, name), "rb").read()
                return self._send(302, b"", {"Location": "/cdn/" + name, "X-Repo-Commit": commit,
                                             "X-Linked-Etag": '"%s"' % hashlib.sha256(data).hexdigest(),
                                             "X-Linked-Size": str(len(data))}, head)
            if p.startswith("/cdn/"):
                name = p[len("/cdn/"):]
                if name not in files:
                    return self._send(404, b"not found", {}, head)
                data = open(os.path.join(repo_dir, name), "rb").read()
                rng = self.headers.get("Range")
                start = 0
                if rng and rng.startswith("bytes=") and rng.endswith("-"):
                    start = int(rng[6:-1])
                    if start >= len(data):
                        return self._send(416, b"", {}, head)
                    self.send_response(206)
                    self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
                else:
                    self.send_response(200)
                body = data[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if head:
                    return
                if drop_after is not None and name.endswith(".safetensors") and name not in dropped:
                    dropped.add(name)
                    self.wfile.write(body[:drop_after])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.wfile.write(body)
                return
            self._send(404, b"no route")

        def do_GET(self):
            self._route(False)

        def do_HEAD(self):
            self._route(True)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
