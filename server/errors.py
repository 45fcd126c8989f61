"""Refusals and how they reach the client: a status code, a message that never echoes unbounded input, and a
``BadRequest`` naming the offending field."""

from __future__ import annotations

import grpc
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

ECHO_LIMIT = 40  # characters of a client's input quoted back in an error


class RequestError(Exception):
    """A request the server refuses; ``code`` is a grpc.StatusCode name, ``field`` the offending field if any."""

    def __init__(self, code: str, message: str, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.field = field

    def __reduce__(self):
        return type(self), (self.code, self.args[0], self.field)


def short(value: object, limit: int = ECHO_LIMIT) -> str:
    """``value`` as text cut to ``limit`` characters, for quoting client input in an error."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


async def abort(context: grpc.aio.ServicerContext, err: RequestError) -> None:
    """Fail the call with a rich status: the code, a message, and a BadRequest naming the field when there is one."""
    status = status_pb2.Status(code=getattr(code_pb2, err.code), message=str(err))
    if err.field:
        detail = error_details_pb2.BadRequest(
            field_violations=[error_details_pb2.BadRequest.FieldViolation(field=err.field, description=str(err))]
        )
        status.details.add().Pack(detail)
    rich = rpc_status.to_status(status)
    await context.abort(rich.code, rich.details, rich.trailing_metadata)
