"""What an unexpected error at a launch becomes: the launched item's error, not a retry loop.

Left READY after a throw, a coordinator action or a workflow node would be tried again at every
tick (or, for a node, never again until a restart) and fail the same way each time. Oozie fails
them instead: CoordActionStartXCommand sets the action FAILED with E1005, and
ActionExecutor.convertException gives an unknown exception's class name as the node's error
code. The store's own errors (``sqlite3.Error``) are not handled here: they abort the tick.
"""

from __future__ import annotations

import logging

from bundletui.errors import BundletuiError

#: Oozie cuts a coordinator action's error message to its column's 255 characters.
MAX_MESSAGE = 255


def launch_error(
    exc: Exception, code: str | None, logger: logging.Logger, what: str
) -> tuple[str, str]:
    """``(error code, message)`` to record for ``exc``. One of ours keeps its code and message;
    any other gets ``code`` (or its class name) and a message naming it, and its traceback goes
    to the log, since it is a fault to report rather than a user's mistake."""
    if isinstance(exc, BundletuiError):
        return exc.code, exc.located
    logger.error("%s failed", what, exc_info=exc)
    name = type(exc).__name__
    if code is None:  # the class name is the code, as Oozie's; the message is the exception's
        return name, (str(exc) or name)[:MAX_MESSAGE]
    return code, f"{name}: {exc}"[:MAX_MESSAGE]
