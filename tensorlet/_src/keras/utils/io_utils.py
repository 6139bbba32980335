"""Where Keras prints: ``print_msg`` writes to stdout while interactive logging is on (the default), and to the
``tensorlet`` logger at INFO level when it is off (``keras.config.disable_interactive_logging()``)."""

from __future__ import annotations

import sys

from tensorlet._src.ops.registry import tf_export

_STATE = {"interactive": True}


@tf_export("keras.config.enable_interactive_logging", "keras.utils.enable_interactive_logging")
def enable_interactive_logging():
    """Progress bars and messages go to stdout (the default)."""
    _STATE["interactive"] = True


@tf_export("keras.config.disable_interactive_logging", "keras.utils.disable_interactive_logging")
def disable_interactive_logging():
    """Progress bars and messages go to the logger instead of stdout."""
    _STATE["interactive"] = False


@tf_export("keras.config.is_interactive_logging_enabled", "keras.utils.is_interactive_logging_enabled")
def is_interactive_logging_enabled():
    """Whether Keras writes its messages to stdout (``True`` by default)."""
    return _STATE["interactive"]


def print_msg(message, line_break=True):
    """Prints ``message`` as Keras does (stdout, flushed; ``━`` becomes ``=`` where stdout cannot encode it)."""
    message = str(message)
    if is_interactive_logging_enabled():
        message = f"{message}\n" if line_break else message
        try:
            sys.stdout.write(message)
        except UnicodeEncodeError:
            encoding = sys.stdout.encoding or "utf-8"
            message = message.replace("━", "=").encode(encoding, errors="ignore").decode(encoding)
            sys.stdout.write(message)
        sys.stdout.flush()
    else:
        from tensorlet._src.framework.context import get_logger

        get_logger().info(message, extra={"user_output": True})
