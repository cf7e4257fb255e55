"""The ``/`` filter and the ``:`` command line, k9s's way: opening and closing the prompt, a
table from each ``:`` verb to what it does, and the jumps of ``:coord`` and ``:job`` through
the tree (expanding, loading children, paging the action table on the way)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label

from bundletui._host import host_label
from bundletui.model.clock import RealClock, to_ms
from bundletui.store.changes import ACTION, COORD
from bundletui.store.lease import HOLDING, lease_state
from bundletui.tui.inputs import Command, parse_command, suggestions
from bundletui.tui.labels import audit_text
from bundletui.tui.screen_state import ScreenState
from bundletui.tui.widgets import JobTree, PromptInput


class PromptMixin(ScreenState):
    """The prompt of :class:`~bundletui.tui.app.MainScreen`, and where its commands go."""

    def action_filter(self) -> None:
        self._open_prompt("filter", self.model.filter_text)

    def action_command(self) -> None:
        self._open_prompt("command", "")

    def _open_prompt(self, mode: str, value: str) -> None:
        prompt = self.query_one("#prompt", PromptInput)
        self.prompt_mode = mode
        prompt.placeholder = (
            "filter: name, id or status (esc clears)"
            if mode == "filter"
            else ":coord <id|name>  :job <id>  :submit <props>  :bundles  :audit  :q"
        )
        prompt.suggester = SuggestFromList(suggestions()) if mode == "command" else None
        prompt.reset_history(self.command_history if mode == "command" else None)
        prompt.value = value
        self.query_one("#prompt-sign", Label).update("/" if mode == "filter" else ":")
        row = self.query_one("#prompt-row")
        row.add_class("-open")
        # shown now (a class only restyles at the next idle): a prompt focused while still
        # hidden could be dropped from the focus chain by a layout in between, focus None
        row.display = True
        # focus now, not at the next idle (Widget.focus): keys already queued behind the / or
        # : (type-ahead, a paste, a laggy link) then go into the prompt, not to the tree
        self.set_focus(prompt)
        prompt.cursor_position = len(value)

    def _close_prompt(self, *, refocus: bool = True) -> None:
        row = self.query_one("#prompt-row")
        row.remove_class("-open")
        row.display = False
        self.prompt_mode = ""
        if refocus:
            self.query_one(JobTree).focus()

    @on(Input.Changed, "#prompt")
    def _prompt_changed(self, event: Input.Changed) -> None:
        if self.prompt_mode == "filter":
            self.set_filter(event.value)

    @on(Input.Submitted, "#prompt")
    def _prompt_submitted(self, event: Input.Submitted) -> None:
        mode = self.prompt_mode
        self._close_prompt()
        if mode == "filter":
            self.set_filter(event.value)
        elif mode == "command":
            line = event.value.strip()
            if line and self.command_history[-1:] != [line]:
                self.command_history.append(line)
            self.run_command_line(event.value)

    def run_command_line(self, line: str) -> None:
        try:
            cmd = parse_command(line)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        handler = self._verbs().get(cmd.verb)
        if handler is not None:
            handler(cmd)

    def _verbs(self) -> dict[str, Callable[[Command], None]]:
        """What each ``:`` verb does (``parse_command`` has turned aliases into verbs)."""
        return {
            "quit": lambda cmd: self.app.exit(),
            "help": lambda cmd: self.action_help(),
            "faults": lambda cmd: self.action_faults(),
            "freeze": lambda cmd: self.action_freeze(),
            "filter": lambda cmd: self.set_filter(cmd.args[0] if cmd.args else ""),
            "bundles": self._show_everything,
            "coord": lambda cmd: self.jump(cmd.args[0], coordinator=True),
            "job": lambda cmd: self.jump(cmd.args[0]),
            "submit": lambda cmd: self._submit(cmd.args[0], cmd.defines),
            "audit": self._open_audit,
            "stats": lambda cmd: self._open_text(
                "console diagnostics", Text(self.stats_text()), "stats"
            ),
            "engine": self._engine_command,
        }

    def _show_everything(self, cmd: Command) -> None:
        """``:bundles``: no filter, not faults only, the cursor on the first job."""
        self.set_filter("")
        if self.model.faults_only:
            self.action_faults()
        tree = self.query_one(JobTree)
        if tree.root.children:
            tree.move_cursor(tree.root.children[0])
            tree.scroll_home(animate=False)

    def _open_audit(self, cmd: Command) -> None:
        self._in_thread(
            lambda: self.backend.audit(None, 500),
            lambda rows: self._open_text("audit log", audit_text(rows), "audit"),
            group="view",
        )

    def _engine_command(self, cmd: Command) -> None:
        """``:engine start`` runs one here; ``:engine``, this console's engine log."""
        if cmd.args:
            self._start_engine()
            return
        embedded = self.console.embedded
        if embedded is None:
            # a read-only console refuses :engine start: it is not offered there
            start = " (it is read-only)" if self.config.read_only else " (:engine start runs one)"
            self.notify(f"no engine runs in this console{start}", severity="warning")
            return
        text = "\n".join(embedded.ring.lines) or "(nothing logged yet)"
        self._open_text(f"engine log ({self.alias(str(embedded.log_path))})", Text(text), "engine")

    def _start_engine(self) -> None:
        console = self.console
        if self.config.read_only:
            self.notify("engine start: the console is read-only", severity="warning")
            return
        running = console.embedded
        if running is not None and not running.done.is_set():
            self.notify(f"an engine already runs in this console ({running.status.state})")
            return
        lease = self.lease
        other = None
        # what the new engine will find: a live lease, or a late one whose holder still runs
        # here (stopped or stalled), is held; an expired one, or a dead holder's, is taken over
        state = lease_state(lease, to_ms(RealClock().now()), self._db_path)
        if lease is not None and state in HOLDING:
            other = f"pid {lease.pid}@{host_label(lease.host)}"
        refusal = console.engine_refusal()
        if refusal is not None:  # said now, not "started" with the failure in the header
            self.notify(refusal, severity="error", timeout=10)
            return
        console.start_engine()
        if other is None:
            self.notify("engine started in this console")
        else:
            self.notify(f"engine started in this console (standby while {other} holds the store)")
        self._refresh_header()

    def jump(self, text: str, *, coordinator: bool = False) -> None:
        """``:coord`` / ``:job``: find the job, expand its ancestors, put the cursor on it."""

        def find() -> list[tuple[str, str]]:
            chain = self.backend.lineage(text)
            if chain or not coordinator:
                return chain
            found = [r for r in self.backend.find(text) if r.kind == COORD]
            return self.backend.lineage(found[0].id) if found else []

        def then(chain: list[tuple[str, str]]) -> None:
            if not chain:
                self.notify(f"no job matches {text!r}", severity="warning")
                return
            if self.model.filter_text or self.model.faults_only:
                self.model.filter_text = ""
                self.model.faults_only = False
                self._apply_view_change(self.model._refresh_all(), [])
            self._walk_to(chain)

        self._in_thread(find, then, group="jump", exclusive=True)

    def _walk_to(self, chain: list[tuple[str, str]]) -> None:
        tree = self.query_one(JobTree)
        for depth, (kind, item_id) in enumerate(chain):
            last = depth == len(chain) - 1
            if item_id not in self.model.items:
                parent = chain[depth - 1] if depth else None
                if parent is not None and parent[0] == COORD and kind == ACTION:
                    # beyond the actions the tree holds: the action table's page that has it
                    self._show_in_table(parent[1], item_id, chain[-1][1])
                    return
                self.notify(f"{item_id} is not in the tree", severity="warning")
                if parent is not None:
                    tree.select_id(parent[1])
                return
            if last:
                tree.select_id(item_id)
                tree.focus()
                return
            node = tree.nodes.get(item_id)
            if node is None:
                return
            if self.model.needs_load(item_id):
                self._pending_walk = (item_id, chain[depth:])
                if node.is_expanded:
                    self._load_children(item_id)
                else:
                    node.expand()  # NodeExpanded loads the children, then the walk goes on
                return
            node.expand()

    def _show_in_table(self, coord_id: str, action_id: str, target: str) -> None:
        """Select the coordinator and open its action table at the page that holds
        ``action_id``, the cursor (and the focus) on it."""
        tree = self.query_one(JobTree)
        self._page_around = (coord_id, action_id)
        self._focus_row = action_id
        tree.select_id(coord_id)
        tree.focus()
        if target != action_id:  # its workflow or a node: reached from the action's row
            self.notify(f"{target} runs under {action_id}: its row is in the action table")
        if self._bottom_key == ("table", coord_id):  # already showing: no selection change
            self._load_page(coord_id, 1)
        else:
            self._refresh_bottom()
