"""``tf.compat.v1.logging`` and ``tf.compat.v1.app.run``: TF1 scripts' logging calls and entry point.

Messages go to the ``tensorflow`` Python logger, as in TF.

>>> tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
>>> tf.compat.v1.logging.get_verbosity()
20
"""

from __future__ import annotations

import logging as _logging
import sys

from tensorlet._src.ops.registry import export_value, tf_export

DEBUG, INFO, WARN, ERROR, FATAL = _logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR, _logging.FATAL
for _n in ("DEBUG", "INFO", "WARN", "ERROR", "FATAL"):
    export_value("compat.v1.logging." + _n, __name__, _n)

_counts: dict = {}


def _logger():
    log = _logging.getLogger("tensorflow")
    if not log.handlers and not _logging.getLogger().handlers:
        handler = _logging.StreamHandler(sys.stderr)
        handler.setFormatter(_logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
        log.addHandler(handler)
        if log.level == _logging.NOTSET:
            log.setLevel(WARN)
    return log


@tf_export("compat.v1.logging.log")
def log(level, msg, *args, **kwargs):
    _logger().log(level, msg, *args, **kwargs)


@tf_export("compat.v1.logging.debug")
def debug(msg, *args, **kwargs):
    _logger().debug(msg, *args, **kwargs)


@tf_export("compat.v1.logging.info")
def info(msg, *args, **kwargs):
    _logger().info(msg, *args, **kwargs)


@tf_export("compat.v1.logging.warning", "compat.v1.logging.warn")
def warning(msg, *args, **kwargs):
    _logger().warning(msg, *args, **kwargs)


@tf_export("compat.v1.logging.error")
def error(msg, *args, **kwargs):
    _logger().error(msg, *args, **kwargs)


@tf_export("compat.v1.logging.fatal")
def fatal(msg, *args, **kwargs):
    _logger().fatal(msg, *args, **kwargs)


@tf_export("compat.v1.logging.vlog")
def vlog(level, msg, *args, **kwargs):
    _logger().log(level, msg, *args, **kwargs)


@tf_export("compat.v1.logging.log_if")
def log_if(level, msg, condition, *args):
    if condition:
        log(level, msg, *args)


def _caller_key():
    f = sys._getframe(2)
    return f.f_code.co_filename, f.f_lineno


@tf_export("compat.v1.logging.log_every_n")
def log_every_n(level, msg, n, *args):
    """Logs on the 1st, (n+1)th, (2n+1)th... call from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count % n == 0:
        log(level, msg, *args)


@tf_export("compat.v1.logging.log_first_n")
def log_first_n(level, msg, n, *args):
    """Logs only the first ``n`` calls from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count < n:
        log(level, msg, *args)


@tf_export("compat.v1.logging.get_verbosity")
def get_verbosity():
    return _logger().getEffectiveLevel()


@tf_export("compat.v1.logging.set_verbosity")
def set_verbosity(v):
    _logger().setLevel(v)


@tf_export("compat.v1.logging.flush")
def flush():
    for h in _logger().handlers:
        h.flush()


@tf_export("compat.v1.app.run")
def run(main=None, argv=None):
    """Calls ``main(argv)`` (default: ``sys.modules['__main__'].main`` and ``sys.argv``) and exits with its
    result.  (TF's absl flag parsing is not implemented.)"""
    main = main or sys.modules["__main__"].main
    sys.exit(main(sys.argv if argv is None else argv))
