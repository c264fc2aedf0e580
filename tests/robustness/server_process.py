"""`qafila serve` as a real child process on free loopback ports, on the test suite's own
database (PostgreSQL + Redis when the suite runs there, else the suite's SQLite file), so a
test can kill it with SIGKILL and start it again."""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

SECRET = "robustness-secret-key-0123456789abcdef-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    def __init__(self, settings, var_dir: Path, **env: str):
        self.port, self.crm_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "QAFILA_ENV": "test", "QAFILA_VAR_DIR": str(var_dir),
                    "DATABASE_URL": settings.database_url, "QAFILA_SECRET_KEY": SECRET,
                    "QAFILA_RATE_LIMIT_SCALE": "100", **env}
        if settings.redis_url:
            self.env["REDIS_URL"] = settings.redis_url
        else:
            self.env.pop("REDIS_URL", None)
        self.log = var_dir / "serve.log"
        self.proc: subprocess.Popen | None = None

    async def start(self, timeout: float = 30) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--crm-port", str(self.crm_port)], env=self.env, stdout=out, stderr=subprocess.STDOUT,
                cwd=Path(__file__).resolve().parents[2])
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as s:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"qafila serve exited: {self.log.read_text()[-2000:]}")
                try:
                    async with s.get(self.url + "/health") as r:
                        if r.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
        raise RuntimeError(f"qafila serve did not answer /health: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, open transactions die with the connections."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
