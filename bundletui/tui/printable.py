"""Text from jobs made safe to paint: control characters shown, never sent to the terminal.

A job's output, a property value or an error message may hold escape sequences. Painted as
they are, they clear the operator's screen, move the cursor or set the window's title (k9s
shows them instead). Each control character becomes one visible one (``ESC`` is ``␛``), so a
styled text keeps its spans.
"""

from __future__ import annotations

from rich.text import Text

# C0 controls but tab and newline -> the Control Pictures block (U+2400 + code); DEL -> ␡;
# C1 controls (also read as escapes by terminals) -> the replacement character
_TABLE = {
    **{c: 0x2400 + c for c in range(0x20) if chr(c) not in "\t\n"},
    0x7F: 0x2421,
    **dict.fromkeys(range(0x80, 0xA0), 0xFFFD),
}


def printable(text: str) -> str:
    """``text`` with every control character but tab and newline made visible; a CR before
    a newline (a file written with CRLF) is dropped rather than shown on every line."""
    return text.replace("\r\n", "\n").translate(_TABLE)


def printable_text(text: Text) -> Text:
    """A styled text with its control characters made visible, spans kept (one character
    for one)."""
    plain = text.plain
    shown = plain.translate(_TABLE)
    if shown == plain:
        return text
    out = text.copy()
    out.plain = shown  # same length: the spans still fit
    return out
