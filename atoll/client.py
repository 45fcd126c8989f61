"""A small typed client for the Atoll gRPC service.

client = AtollClient("127.0.0.1:50051")
game = client.create_game("survive", players=4, seats=[None, BOT, BOT, BOT])
view = client.get_view(game.game_id, 0)            # uses the seat's token from create_game
client.act(game.game_id, 0, action_text=view.legal_actions[0].text)
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from atoll.v1 import atoll_pb2 as pb
from atoll.v1 import atoll_pb2_grpc

BOT = pb.SeatConfig(is_bot=True)


class AtollClient:
    def __init__(self, target: str, *, timeout: float | None = 30.0, own_connection: bool = False):
        """``own_connection``: a TCP connection of this client's own (gRPC otherwise shares one between the channels
        of a process to the same target, and the server counts quotas per connection for calls without a token)."""
        options = [("grpc.use_local_subchannel_pool", 1)] if own_connection else []
        self.channel = grpc.insecure_channel(target, options=options)
        self.stub = atoll_pb2_grpc.AtollStub(self.channel)
        self.timeout = timeout
        self.tokens: dict[tuple[str, int], str] = {}

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> AtollClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _auth(self, game_id: str, seat: int, token: str | None) -> list[tuple[str, str]]:
        token = token or self.tokens.get((game_id, seat))
        return [("authorization", f"Bearer {token}")] if token else []

    def list_games(self) -> list[pb.GameInfo]:
        return list(self.stub.ListGames(pb.ListGamesRequest(), timeout=self.timeout).games)

    def create_game(
        self,
        game: str,
        players: int,
        *,
        seed: int | None = None,
        options: dict[str, str] | None = None,
        seats: list[pb.SeatConfig | None] | None = None,
    ) -> pb.CreateGameResponse:
        """A hosted game; ``seats[k]`` None (or missing) is a human seat. Without ``seed`` the server draws a
        secret one; a chosen seed makes the game's chance predictable (replays, tests)."""
        request = pb.CreateGameRequest(
            game=game,
            players=players,
            options=options or {},
            seats=[s or pb.SeatConfig() for s in (seats or [])],
        )
        if seed is not None:
            request.seed = seed
        response = self.stub.CreateGame(request, timeout=self.timeout)
        for seat in response.seats:
            if seat.token:
                self.tokens[(response.game_id, seat.seat)] = seat.token
        return response

    def get_view(self, game_id: str, seat: int, *, token: str | None = None) -> pb.View:
        return self.stub.GetView(
            pb.GetViewRequest(game_id=game_id, seat=seat),
            timeout=self.timeout,
            metadata=self._auth(game_id, seat, token),
        )

    def act(
        self,
        game_id: str,
        seat: int,
        *,
        action_id: int | None = None,
        action_text: str | None = None,
        expected_move_number: int | None = None,
        token: str | None = None,
    ) -> pb.ActResponse:
        request = pb.ActRequest(game_id=game_id, seat=seat)
        if action_id is not None:
            request.action_id = action_id
        if action_text is not None:
            request.action_text = action_text
        if expected_move_number is not None:
            request.expected_move_number = expected_move_number
        return self.stub.Act(request, timeout=self.timeout, metadata=self._auth(game_id, seat, token))

    def bot_move(self, game_id: str, seat: int, *, token: str | None = None) -> pb.ActResponse:
        return self.stub.BotMove(
            pb.BotMoveRequest(game_id=game_id, seat=seat),
            timeout=self.timeout,
            metadata=self._auth(game_id, seat, token),
        )

    def suggest(
        self,
        *,
        game_id: str | None = None,
        seat: int | None = None,
        observation: pb.Observation | None = None,
        settings: pb.BotSettings | None = None,
        timeout: float | None = None,
        token: str | None = None,
    ) -> pb.SuggestResponse:
        request = self._suggest_request(game_id, seat, observation, settings)
        metadata = self._auth(game_id, seat, token) if game_id else []
        return self.stub.Suggest(request, timeout=timeout or self.timeout, metadata=metadata)

    def analyze(
        self,
        *,
        game_id: str | None = None,
        seat: int | None = None,
        observation: pb.Observation | None = None,
        settings: pb.BotSettings | None = None,
        token: str | None = None,
    ) -> Iterator[pb.SuggestResponse]:
        request = self._suggest_request(game_id, seat, observation, settings)
        metadata = self._auth(game_id, seat, token) if game_id else []
        return self.stub.Analyze(request, metadata=metadata)

    @staticmethod
    def _suggest_request(game_id, seat, observation, settings) -> pb.SuggestRequest:
        request = pb.SuggestRequest(settings=settings or pb.BotSettings())
        if observation is not None:
            request.observation.CopyFrom(observation)
        else:
            request.hosted.CopyFrom(pb.HostedSeat(game_id=game_id, seat=seat))
        return request

    def play_game(
        self, game: str, players: int, *, seed: int | None = None, bots: list[pb.BotSettings] | None = None
    ) -> Iterator[pb.GameEvent]:
        request = pb.PlayGameRequest(game=game, players=players, bots=bots or [])
        if seed is not None:
            request.seed = seed
        return self.stub.PlayGame(request)

    def watch_game(
        self, game_id: str, seat: int, *, from_move: int = 0, token: str | None = None
    ) -> Iterator[pb.GameEvent]:
        return self.stub.WatchGame(
            pb.WatchGameRequest(game_id=game_id, seat=seat, from_move=from_move),
            metadata=self._auth(game_id, seat, token),
        )
