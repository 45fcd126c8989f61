"""The Connect protocol on the page's port (``atoll serve --web``), without a browser: the same service, its
refusals as Connect errors with their field, server streams with their end message, deadlines, and nothing served
from outside the page."""

import json
import socket
import struct
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    if not (ROOT / "web" / "dist" / "app.js").exists():
        import os

        if os.environ.get("CI") == "true":
            pytest.fail("the page is not built (make web); CI=true requires it")
        pytest.skip("the page is not built (make web)")
    proc, url = start_web(tmp_path_factory.mktemp("connect") / "games.sqlite3")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def start_web(db: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(db), "--web", "--web-port", "0",
         *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout.readline().startswith("Atoll listening on ")
    return proc, proc.stdout.readline().split("the page: ")[1].split()[0].rstrip("/")


def call(url: str, method: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{url}/atoll.v1.Atoll/{method}", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def stream(url: str, method: str, body: dict) -> list[tuple[int, dict]]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(
        f"{url}/atoll.v1.Atoll/{method}", data=struct.pack(">BI", 0, len(data)) + data,
        headers={"Content-Type": "application/connect+json"},
    )  # fmt: skip
    raw = urllib.request.urlopen(request, timeout=120).read()
    out, k = [], 0
    while k < len(raw):
        flags, length = struct.unpack(">BI", raw[k : k + 5])
        out.append((flags, json.loads(raw[k + 5 : k + 5 + length])))
        k += 5 + length
    return out


def test_a_game_is_created_viewed_with_its_svg_board_and_played_over_connect(web):
    status, game = call(web, "CreateGame", {"game": "islet", "players": 2, "seed": "4",
                                            "seats": [{}, {"isBot": True, "bot": {"level": 1}}]})  # fmt: skip
    assert status == 200 and game["gameId"]
    token = {"authorization": f"Bearer {game['seats'][0]['token']}"}
    status, view = call(web, "GetView", {"gameId": game["gameId"], "seat": 0, "svg": True}, token)
    assert status == 200 and view["boardSvg"].startswith("<svg") and view["legalActions"]
    status, reply = call(web, "Act", {"gameId": game["gameId"], "seat": 0,
                                      "actionId": view["legalActions"][0]["id"]}, token)  # fmt: skip
    assert status == 200 and reply["played"]["action"]["id"] == view["legalActions"][0]["id"]


def test_refusals_are_connect_errors_with_their_field(web):
    status, error = call(web, "GetView", {"gameId": "nope", "seat": 0})
    assert status == 404 and error["code"] == "not_found" and "nope" in error["message"]
    assert error["details"][0]["type"] == "google.rpc.BadRequest"
    status, error = call(web, "CreateGame", {"game": "chess", "players": 2})
    assert status == 400 and error["code"] == "invalid_argument"
    status, error = call(web, "CreateGame", {"game": "islet", "players": "two"})  # not the message's JSON
    assert status == 400 and "CreateGameRequest" in error["message"]
    status, error = call(web, "Nope", {})
    assert status == 404 and error["code"] == "unimplemented"
    status, error = call(web, "ListGames", {"padding": "x" * (2 << 20)})  # over the 1 MB a request may take
    assert status == 413 and error["code"] == "resource_exhausted"


def test_a_server_stream_ends_with_its_end_message_and_a_refused_one_carries_the_error(web):
    events = stream(web, "PlayGame", {"game": "kuhn_poker", "players": 2, "seed": "3"})
    assert [flags for flags, _ in events[:-1]] == [0] * (len(events) - 1) and events[-2][1]["final"]
    assert events[-1] == (2, {})
    events = stream(web, "PlayGame", {"game": "kuhn_poker", "players": 2, "svgSeat": 0})
    assert events == [(2, {"error": events[0][1]["error"]})] and events[0][1]["error"]["code"] == "invalid_argument"


def test_a_deadline_cuts_a_search_short_and_says_so(web):
    import time

    status, game = call(web, "CreateGame", {"game": "survive", "players": 2, "seed": "5"})
    token = {"authorization": f"Bearer {game['seats'][0]['token']}"}
    hosted = {"hosted": {"gameId": game["gameId"], "seat": 0}, "settings": {"algorithm": "ismcts",
                                                                           "iterations": 500_000}}  # fmt: skip
    started = time.monotonic()
    status, reply = call(web, "Suggest", hosted, {**token, "Connect-Timeout-Ms": "800"})
    # Answered, cut short, and not hung (how far before the deadline is a benchmark's figure, not a unit test's).
    assert status == 200 and reply["stats"]["stoppedEarly"] and time.monotonic() - started < 30


def test_only_the_page_is_served(web):
    assert urllib.request.urlopen(f"{web}/", timeout=10).read().startswith(b"<!doctype html>")
    assert urllib.request.urlopen(f"{web}/app.js", timeout=10).status == 200
    host, port = web.removeprefix("http://").split(":")
    for path in ("/../pyproject.toml", "/src/app.js", "/package.json", "/%2e%2e/server/web.py"):
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            raw.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert raw.recv(100).startswith(b"HTTP/1.1 404"), path


def open_watch(url: str, game_id: str, token: str) -> tuple[socket.socket, bytes]:
    """A WatchGame stream on a raw connection: its socket and the first bytes the server sent."""
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps({"gameId": game_id, "seat": 0}).encode()
    raw = socket.create_connection((host, int(port)), timeout=10)
    raw.sendall(
        b"POST /atoll.v1.Atoll/WatchGame HTTP/1.1\r\nHost: x\r\nContent-Type: application/connect+json\r\n"
        + f"Authorization: Bearer {token}\r\nContent-Length: {len(body) + 5}\r\n\r\n".encode()
        + struct.pack(">BI", 0, len(body))
        + body
    )
    received = b""
    raw.settimeout(1.0)
    try:  # what the server sends within a second: the headers, the moves so far, or the refusal's end message
        while b"resource_exhausted" not in received and len(received) < 1 << 16:
            chunk = raw.recv(4096)
            if not chunk:
                break
            received += chunk
    except TimeoutError:
        pass
    return raw, received


def test_a_stream_whose_client_goes_away_gives_its_quota_back(tmp_path):
    """A browser tab closed on an idle WatchGame: the server closes the service's stream (as for a cancelled gRPC
    call), so the caller's streams are not used up by streams nobody reads."""
    import time

    proc, url = start_web(tmp_path / "games.sqlite3", "--streams-per-caller", "2")
    try:
        status, game = call(url, "CreateGame", {"game": "islet", "players": 2, "seed": "4",
                                                "seats": [{}, {"isBot": True, "bot": {"level": 1}}]})  # fmt: skip
        token = game["seats"][0]["token"]
        for _ in range(4):  # twice the quota, one after another, each left by its client
            deadline = time.monotonic() + 10
            while True:
                raw, first = open_watch(url, game["gameId"], token)
                if b"resource_exhausted" not in first or time.monotonic() > deadline:
                    break
                raw.close()
                time.sleep(0.1)
            assert first.startswith(b"HTTP/1.1 200") and b"resource_exhausted" not in first, first[:300]
            raw.close()
        held = [open_watch(url, game["gameId"], token) for _ in range(3)]  # the quota still holds while they read
        assert any(b"resource_exhausted" in first for _, first in held)
        for raw, _ in held:
            raw.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
