"""The exception tree: one error type per layer, each carrying an Oozie-style code.

Faces catch :class:`BundletuiError` and print ``Error: <code>: <message>`` (plus the hint), so a
user mistake never shows a traceback. Codes are Oozie's where Oozie has one (oozie.md §8); the
``EB`` codes are this project's own.
"""

from __future__ import annotations

import errno
from typing import Any, Self

# Oozie's message templates (oozie.md §8) plus ours. ``{0}``-style placeholders as in Oozie.
TEMPLATES: dict[str, str] = {
    "E0302": "Invalid parameter [{0}]",
    "E0303": "Invalid parameter value, [{0}] = [{1}]",
    "E0305": "Missing parameter [{0}]",
    "E0307": "Runtime error [{0}]",
    "E0405": "Submission request doesn't have any application or lib path",
    "E0604": "Job does not exist [{0}]",
    "E0605": "Action does not exist [{0}]",
    "E0701": "XML schema error, {0}",
    "E0738": "The following {0} parameters are required but were not defined and no default values are available: {1}",
    "E1003": "Invalid coordinator application attributes, {0}",
    "E1004": "Expression language evaluation error, {0}",
    "E1010": "Invalid data in coordinator xml. [{0}]",
    "E1015": "Invalid coordinator job change value {0}, {1}",
    "E1016": "Cannot change a killed coordinator job",
    "E1018": "Coord Job Rerun Error: {0}",
    "E1020": "Could not kill coord job, this job either finished successfully or does not exist , [{0}]",
    "E1022": "Cannot delete running/completed coordinator action: [{0}]",
    "E1024": "Cannot run ignore command: [{0}]",
    "E1100": "Command precondition does not hold before execution, [{0}]",
    "E1303": "Invalid bundle application attributes [{0}], {1}",
    "E1304": "Duplicate bundle application coordinator name [{0}]",
    "E1305": "Empty bundle application coordinator name.",
    "E1312": "Bundle Job can not be suspended as job finished or failed or killed, id : {0}, status : {1}",
    "E1317": "Invalid bundle job change value {0}, {1}",
    "E1318": "No coord jobs for the bundle=[{0}], fail the bundle",
    "E1320": "Bundle Job change error, [{0}]",
    "E1323": "Could not kill bundle job, this job either finished successfully or does not exist , [{0}]",
    "E0728": "Coordinator Job can not be suspended as job finished or failed or killed, id : {0}, status : {1}",
}


class BundletuiError(Exception):
    """Base of every error a user can cause. ``code`` is Oozie-style (``E0701``)."""

    layer = "bundletui"

    def __init__(
        self,
        code: str,
        message: str,
        *,
        hint: str | None = None,
        file: str | None = None,
        line: int | None = None,
        usage: bool = False,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.file = file
        self.line = line
        # the command line alone shows the mistake (an option's value, options or an id that
        # do not go together): the CLI exits 2 for it, as for a usage error; other faces
        # answer it as any refusal
        self.usage = usage

    @classmethod
    def from_template(
        cls, code: str, *args: object, hint: str | None = None, usage: bool = False
    ) -> Self:
        """Build an error from Oozie's message template for ``code``."""
        template = TEMPLATES.get(code, "{0}")
        return cls(code, template.format(*args), hint=hint, usage=usage)

    @property
    def where(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or ""

    @property
    def located(self) -> str:
        """The message with where it happened in front (for a record that keeps only the
        message, such as a node's error), unless the message names the file already."""
        if not self.where or (self.file and self.file in self.message):
            return self.message
        return f"{self.where}: {self.message}"

    def __str__(self) -> str:
        where = f"{self.where}: " if self.where else ""
        return f"{self.code}: {where}{self.message}"

    def describe(self) -> str:
        """The one-paragraph form the CLI prints: code, place, message, then how to fix it."""
        text = str(self)
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class UsageError(BundletuiError):
    """A value on the command line that the command line itself can tell is wrong (an
    option's value, or two options that do not go together): exit 2, as a usage mistake,
    where a refused command exits 1."""

    layer = "cli"

    def __init__(self, code: str, message: str, **kw: Any) -> None:
        kw["usage"] = True
        super().__init__(code, message, **kw)

    @classmethod
    def of(cls, exc: BundletuiError) -> UsageError:
        return cls(exc.code, exc.message, hint=exc.hint)


class ModelError(BundletuiError):
    """Illegal state transitions, bad times or frequencies (pure domain)."""

    layer = "model"


class SpecError(BundletuiError):
    """A bad properties / XML / EL input: names the file and line where it can."""

    layer = "spec"


class StoreError(BundletuiError):
    """The SQLite store cannot be opened, migrated, or holds no such row."""

    layer = "store"


class CommandError(BundletuiError):
    """A user command that is not allowed now (wrong state, unknown id, bad value)."""

    layer = "commands"


class QueuedError(CommandError):
    """Refused for now: a command queued for the same job has not been run by the engine
    yet. A live engine runs it within a tick, so a command waits a moment and tries again
    (an HTTP client that changes a bundle and then reruns it gets its rerun)."""


class EngineError(BundletuiError):
    """A fatal engine condition (lease lost, store unusable)."""

    layer = "engine"


class ApiError(BundletuiError):
    """A refused HTTP request (bad content type, parameter or resource, missing token, safe
    mode); ``status`` is the HTTP status Oozie's servlets answer with (400, 401, 404, 503)."""

    layer = "api"

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int = 400,
        hint: str | None = None,
        usage: bool = False,
    ) -> None:
        super().__init__(code, message, hint=hint, usage=usage)
        self.status = status


# OSErrors that say the path a user gave cannot be a path here, whatever is on disk
_PATH_ERRNOS = {
    errno.ENAMETOOLONG: "a name in it is too long (at most 255 bytes a name, 4096 in all)",
    errno.ELOOP: "it goes round a loop of symbolic links",
}


def path_error(exc: OSError) -> SpecError | None:
    """A user's impossible path (too long, a symlink loop) as one clear E0702; None for the
    other OS errors, which are not the input's."""
    why = _PATH_ERRNOS.get(exc.errno or 0)
    if why is None:
        return None
    shown = exc.filename if isinstance(exc.filename, str) else str(exc.filename or "")
    if len(shown) > 120:
        shown = shown[:60] + "…" + shown[-40:]
    # the input's error, as the E0702 of a file the spec layer cannot read
    return SpecError("E0702", f"IO error, path [{shown}]: {why}", hint="check the path given")
