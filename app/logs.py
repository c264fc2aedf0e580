"""Logging for operators: one access line per request and, with QAFILA_LOG_FORMAT=json, every log
record as one JSON object a line. An access line carries the method, the path without its query
string (query strings may hold tokens), the status, the duration and the request id -- never a
header, a body, a key, a card number or a token."""
from __future__ import annotations

import collections
import logging
import os
import time
import weakref

import orjson
from aiohttp import web

access = logging.getLogger("qafila.access")


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message", ...extra fields}` per record."""

    FIELDS = ("method", "path", "status", "duration_ms", "request_id", "remote")

    def access_text(self, method: str, path: str, status: int, ms: float, rid: str, remote: str | None,
                    created_ns: int) -> str | None:
        """What `format` writes for an access line's record (tests/robustness/test_access_log.py
        compares them), made from the values themselves."""
        seconds = created_ns // 1_000_000_000
        return orjson.dumps({
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
                    + f".{(created_ns % 1_000_000_000) // 1_000_000:03d}Z",
            "level": "info", "logger": access.name, "message": f"{method} {path} {status} {ms:.1f}ms {rid}",
            "method": method, "path": path, "status": status, "duration_ms": ms, "request_id": rid,
            "remote": remote}).decode() + "\n"

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
               "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        for name in self.FIELDS:
            if hasattr(record, name):
                out[name] = getattr(record, name)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(out).decode()


JsonFormatter.converter = time.gmtime


class BatchedStreamHandler(logging.StreamHandler):
    """stderr, written in batches: records below WARNING (the access lines) are flushed at most
    every FLUSH_EVERY seconds by a daemon thread, as nginx's `access_log ... buffer=` does, instead of one
    write system call per request; a WARNING or worse flushes at once with all before it, and
    logging.shutdown() (at exit) flushes what is left."""

    FLUSH_EVERY = 0.5

    def __init__(self, stream=None):
        import io
        import sys
        target = stream or sys.stderr
        try:
            # The same file descriptor behind a 64 KiB buffer, not line-buffered as sys.stderr is.
            target = io.TextIOWrapper(open(target.fileno(), "wb", buffering=65536, closefd=False),
                                      encoding="utf-8", errors="backslashreplace", line_buffering=False)
        except (AttributeError, OSError, ValueError):   # no file descriptor (a test's StringIO): as given
            pass
        super().__init__(target)
        self._lines: collections.deque[str] = collections.deque()     # ready access lines (add_line)
        self._start_flusher()
        ref = weakref.WeakMethod(self._start_flusher)
        # A thread does not survive fork (`qafila serve --workers N`): each child starts its own.
        os.register_at_fork(after_in_child=lambda: (ref() or (lambda: None))())

    def _start_flusher(self) -> None:
        import threading
        self._batched = threading.Event()
        threading.Thread(target=self._flusher, name="log-flush", daemon=True).start()

    def _flusher(self) -> None:
        while True:
            self._batched.wait()
            time.sleep(self.FLUSH_EVERY)
            self._batched.clear()
            self.flush()

    def add_line(self, text: str) -> None:
        """A ready access line (`access_line`'s direct path), written with the next batch; no
        record, no formatter call, no handler lock on the request's path."""
        self._lines.append(text)
        if not self._batched.is_set():
            self._batched.set()

    def _drain(self) -> None:
        """Write the queued lines (with the handler's lock held), in the order they came."""
        lines, take = [], self._lines.popleft
        try:
            while True:
                lines.append(take())
        except IndexError:
            pass
        if lines:
            self.stream.write("".join(lines))

    def flush(self) -> None:
        with self.lock:
            self._drain()
        super().flush()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._drain()                   # a record after the lines queued before it
            self.stream.write(self.format(record) + self.terminator)
        except RecursionError:
            raise
        except Exception:  # noqa: BLE001 - logging's own contract: report and go on
            self.handleError(record)
            return
        if record.levelno >= logging.WARNING:
            self.flush()
        elif not self._batched.is_set():
            self._batched.set()


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class TextFormatter(logging.Formatter):
    """logging's own text format (`2026-01-31 12:00:00,123`, UTC), the date and time written
    once a second rather than once a record (an access line a request)."""

    converter = time.gmtime

    def __init__(self, fmt: str = TEXT_FORMAT):
        super().__init__(fmt)
        self._second, self._text = -1, ""
        self._plain = fmt == TEXT_FORMAT

    def _date(self, second: int) -> str:
        if second != self._second:
            self._second, self._text = second, time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(second))
        return self._text

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return f"{self._date(int(record.created))},{int(record.msecs):03d}"

    def access_text(self, method: str, path: str, status: int, ms: float, rid: str, remote: str | None,
                    created_ns: int) -> str | None:
        """What `format` writes for an access line's record, made from the values themselves;
        None for a format other than TEXT_FORMAT."""
        if not self._plain:
            return None
        return (f"{self._date(created_ns // 1_000_000_000)},{(created_ns % 1_000_000_000) // 1_000_000:03d} "
                f"INFO {access.name} {method} {path} {status} {ms:.1f}ms {rid}\n")


def configure(fmt: str = "text", level: int = logging.INFO) -> None:
    handler = BatchedStreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in root.handlers:
        old.flush()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("tortoise").setLevel(logging.WARNING)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    # fontTools logs some forty INFO lines per invoice PDF (its font subsetting): noise, not news.
    logging.getLogger("fontTools").setLevel(logging.WARNING)


_SECRET_PARTS = ("token",)       # path parameters that are credentials (an invoice PDF's token)


def _path(request: web.Request) -> str:
    """The path, with a path parameter that is a credential replaced by its name."""
    path = request.path
    info = request.match_info
    for name in _SECRET_PARTS:
        value = info.get(name) if info is not None else None
        if value:
            path = path.replace(value, "{" + name + "}")
    return path


class AccessRecord(logging.LogRecord):
    """An access line's record, made without what LogRecord.__init__ looks up for every record
    (the caller's frame, source path, thread, process): an access line has no call site worth
    naming. Everything a formatter or a handler reads is set."""

    def __init__(self, method: str, path: str, status: int, ms: float, rid: str, remote: str | None,
                 now: int | None = None):
        now = time.time_ns() if now is None else now
        self.name = access.name
        self.msg = "%s %s %s %.1fms %s"
        self.args = (method, path, status, ms, rid)
        self.levelname, self.levelno = "INFO", logging.INFO
        self.pathname, self.filename, self.module = __file__, "logs.py", "logs"
        self.exc_info = self.exc_text = self.stack_info = None
        self.lineno, self.funcName = 0, "access_line"
        self.created = now / 1e9
        self.msecs = (now % 1_000_000_000) // 1_000_000
        self.relativeCreated = (self.created - logging._startTime) * 1000
        self.thread = self.threadName = self.processName = self.process = self.taskName = None
        self.method, self.path, self.status, self.duration_ms = method, path, status, ms
        self.request_id, self.remote = rid, remote


_ROOT = logging.getLogger()


def _direct() -> BatchedStreamHandler | None:
    """The batched handler an access line may be queued on directly: when it is the only place
    the line would go (the root's one handler, as `configure` sets up) and nothing filters it.
    Otherwise (a test's caplog, another handler, a filter) the line is a logging record."""
    handlers = _ROOT.handlers
    if len(handlers) != 1 or access.handlers or access.filters or _ROOT.filters or not access.propagate:
        return None
    handler = handlers[0]
    if type(handler) is not BatchedStreamHandler or handler.filters or handler.level > logging.INFO:
        return None
    return handler


def access_line(request: web.Request, status: int, started: float, rid: str) -> None:
    """The access line of one answered request (app.server's edge middleware calls it): queued
    as ready text on the batched handler where that is the only destination (a record, its
    formatting through logging's machinery and the handler's lock cost a fifteenth of a
    payment read), else handled as a logging record."""
    if not access.isEnabledFor(logging.INFO):
        return
    ms = round((time.perf_counter() - started) * 1000, 1)
    direct = _direct()
    if direct is not None:
        formatter = direct.formatter
        text = formatter.access_text(request.method, _path(request), status, ms, rid, request.remote,
                                     time.time_ns()) if hasattr(formatter, "access_text") else None
        if text is not None:
            direct.add_line(text)
            return
    access.handle(AccessRecord(request.method, _path(request), status, ms, rid, request.remote))
