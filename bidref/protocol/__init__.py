"""Engine protocol ``bidref/1``: wire messages (pydantic v2) and the line codec.

The spec is ``protocols/PROTOCOL.md``; the schema ``protocols/bidref-1.schema.json``
is generated from these models by :mod:`bidref.protocol.schema`.
"""

from .codec import (
    BadJson,
    BadMessage,
    ProtocolError,
    decode_engine_line,
    decode_referee_line,
    encode,
    encode_request,
    load_json,
    quote,
)
from .messages import (
    PROTOCOL_VERSION,
    ActionMsg,
    ClockInfo,
    EngineHello,
    EngineMessage,
    ErrorCode,
    ErrorMsg,
    EventMsg,
    Log,
    Ping,
    Pong,
    Quit,
    RefereeHello,
    RefereeMessage,
    Request,
    Resign,
    RulesAnswer,
    RulesRequest,
    Settings,
)

__all__ = [
    "PROTOCOL_VERSION",
    "ActionMsg",
    "BadJson",
    "BadMessage",
    "ClockInfo",
    "EngineHello",
    "EngineMessage",
    "ErrorCode",
    "ErrorMsg",
    "EventMsg",
    "Log",
    "Ping",
    "Pong",
    "ProtocolError",
    "Quit",
    "RefereeHello",
    "RefereeMessage",
    "Request",
    "Resign",
    "RulesAnswer",
    "RulesRequest",
    "Settings",
    "decode_engine_line",
    "decode_referee_line",
    "encode",
    "encode_request",
    "load_json",
    "quote",
]
