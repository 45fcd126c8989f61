"""Real server processes on loopback for the service tests."""

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from atoll.client import AtollClient

ROOT = Path(__file__).resolve().parents[2]


class ServerProcess:
    def __init__(self, db: Path, extra: tuple[str, ...] = (), log: Path | None = None):
        self.db = db
        self.extra = extra
        self.log = log  # the server's stderr (a JSON line a call), kept here when given
        self.proc = None
        self.address = None

    def store_flag(self) -> list[str]:
        """``--db FILE`` for the embedded store, ``--store URL`` for PostgreSQL."""
        where = str(self.db)
        return ["--store", where] if where.startswith("postgresql://") else ["--db", where]

    def start(self) -> "ServerProcess":
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", "0", *self.store_flag(), *self.extra],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=open(self.log, "a") if self.log else subprocess.DEVNULL,  # noqa: SIM115 - the child's to keep
            text=True,
        )
        line = self.proc.stdout.readline()
        assert line.startswith("Atoll listening on "), line
        self.address = line.split()[3]
        channel = grpc.insecure_channel(self.address)
        health = health_pb2_grpc.HealthStub(channel)
        deadline = time.time() + 20
        while True:
            try:
                if (
                    health.Check(health_pb2.HealthCheckRequest(), timeout=1).status
                    == health_pb2.HealthCheckResponse.SERVING
                ):
                    break
            except grpc.RpcError:
                pass
            assert time.time() < deadline, "server did not become healthy"
            time.sleep(0.05)
        channel.close()
        return self

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("db") / "games.sqlite3").start()
    yield process
    process.stop()


@pytest.fixture()
def client(server):
    with AtollClient(server.address) as c:
        yield c


def field_violations(error: grpc.RpcError) -> list[str]:
    """The fields a refusal's BadRequest detail names."""
    status = rpc_status.from_call(error)
    fields = []
    for detail in status.details if status else []:
        request = error_details_pb2.BadRequest()
        if detail.Unpack(request):
            fields += [v.field for v in request.field_violations]
    return fields


def refused(call) -> grpc.RpcError:
    """The error ``call()`` fails with (for a stream, its first message's)."""
    with pytest.raises(grpc.RpcError) as err:
        result = call()
        if hasattr(result, "__next__"):
            next(result)
    return err.value


POSTGRES_ADMIN = os.environ.get("ATOLL_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


@contextlib.contextmanager
def postgres_database():
    """A PostgreSQL database of its own on this machine's server, dropped after; without a reachable PostgreSQL the
    test skips with one line (under CI=true it fails)."""
    psycopg = pytest.importorskip("psycopg")
    try:
        admin = psycopg.connect(POSTGRES_ADMIN, autocommit=True, connect_timeout=3)
    except psycopg.Error as err:
        if os.environ.get("CI") == "true":
            pytest.fail(f"no PostgreSQL at {POSTGRES_ADMIN} ({err}); CI=true requires it")
        pytest.skip(f"no PostgreSQL at {POSTGRES_ADMIN}")
    name = f"atoll_test_{secrets.token_hex(6)}"
    admin.execute(f"CREATE DATABASE {name}")
    try:
        yield POSTGRES_ADMIN.rsplit("/", 1)[0] + "/" + name
    finally:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_spec(request, tmp_path):
    """Where a test's server keeps its games: each store in turn (the hosting contract holds for both)."""
    if request.param == "sqlite":
        yield tmp_path / "games.sqlite3"
    else:
        with postgres_database() as dsn:
            yield dsn


@pytest.fixture
def pg_dsn():
    with postgres_database() as dsn:
        yield dsn
