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


def set_status(context: grpc.aio.ServicerContext, err: RequestError) -> None:
    """Set the call's failing status: the code, a message, and a BadRequest naming the field when there is one. The
    handler then returns no message (cheaper than ``context.abort``, which raises through gRPC's own handling: a
    client flooding the server with refused calls costs it less)."""
    if err.field:
        status = status_pb2.Status(code=getattr(code_pb2, err.code), message=str(err))
        detail = error_details_pb2.BadRequest(
            field_violations=[error_details_pb2.BadRequest.FieldViolation(field=err.field, description=str(err))]
        )
        status.details.add().Pack(detail)
        context.set_trailing_metadata(rpc_status.to_status(status).trailing_metadata)
    context.set_code(getattr(grpc.StatusCode, err.code))
    context.set_details(str(err))
