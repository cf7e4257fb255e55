"""The keys that open a view of the selected job: details, describe (its JSON), definition
(its XML) and logs; and where a view's text or a screen dump is saved."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text

from bundletui.model.status import has_ended
from bundletui.tui import details as pages
from bundletui.tui.backend import LogFile
from bundletui.tui.model import MORE
from bundletui.tui.screen_state import ScreenState
from bundletui.tui.views import LogScreen, TextScreen, save_path, syntax


class JobViewsMixin(ScreenState):
    """The views :class:`~bundletui.tui.app.MainScreen` opens on the selected job."""

    def action_details(self) -> None:
        item = self._selected_item()
        if item is None or item.kind == MORE:
            return
        item_id, kind = item.id, item.kind
        self._in_thread(
            lambda: self._details_info(item_id, kind),
            lambda info: self._open_text(
                f"details: {item_id}",
                pages.page(kind, info, self.alias, self.config.read_only),
                item_id,
            ),
            group="view",
        )

    def action_describe(self) -> None:
        item = self._selected_item()
        if item is None or item.kind == MORE:
            return
        item_id, kind = item.id, item.kind

        def then(info: dict[str, Any]) -> None:
            text = pages.describe_text(info)
            self._open_text(f"describe: {item_id}", syntax(text, "json"), item_id, text, ".json")

        self._in_thread(lambda: self.backend.info(item_id, kind), then, group="view")

    def action_definition(self) -> None:
        item = self._selected_item()
        if item is None or item.kind == MORE:
            return
        item_id = item.id

        def then(xml: str) -> None:
            self._open_text(f"definition: {item_id}", syntax(xml, "xml"), item_id, xml, ".xml")

        self._in_thread(lambda: self.backend.definition(item_id), then, group="view")

    def _open_text(
        self,
        title: str,
        body: Any,
        name: str,
        plain: str | None = None,
        suffix: str = ".txt",
    ) -> None:
        text = plain if plain is not None else (body.plain if isinstance(body, Text) else str(body))
        self.app.push_screen(
            TextScreen(title, body, plain=text, save_to=self._saver(name, suffix), name=name)
        )

    def _save_path(self, name: str, suffix: str) -> Path:
        stamp = f"{self.config.clock.now():%Y%m%dT%H%M%S}"
        demo = self.config.demo
        # a --demo home is deleted on exit: what is saved from it must outlive it
        where = Path.cwd() if demo is not None and demo.temporary else self.config.home
        return save_path(where, name, suffix, stamp)

    def _saver(self, name: str, suffix: str) -> Callable[[str], Path]:
        def save(text: str) -> Path:
            path = self._save_path(name, suffix)
            path.write_text(text, encoding="utf-8")
            return path

        return save

    def action_screen_dump(self) -> None:
        """The screen as it is, as SVG, under ``<home>/saved/`` (tui.md: a screen dump to
        attach to a ticket; the views save their text the same way)."""
        path = self._save_path("console", ".svg")
        self.app.save_screenshot(filename=path.name, path=str(path.parent))
        self.notify(f"saved {path}")

    def action_logs(self) -> None:
        item = self._selected_item()
        if item is None:
            return
        item_id, kind, link = item.id, item.kind, item.row.link
        backend = self.backend

        def sources() -> list[LogFile]:
            return backend.log_files(kind, item_id, link)

        def live() -> bool:  # a suspended workflow's running nodes still write
            current = self.model.items.get(item_id)
            return not has_ended(current.status if current is not None else item.status)

        self.app.push_screen(
            LogScreen(
                f"logs: {self.alias(item_id)}",
                sources,
                live=live,
                save_to=self._saver(item_id, ".log"),
            )
        )
