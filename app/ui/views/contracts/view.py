"""The contracts panel: each contract's state, numbers, looks and plot, and Certify.

One card per contract of :attr:`ProjectData.labels` (a
:class:`~app.core.contracts.label_report.LabelReport`): its id, kind and schema, its
state as a coloured badge, its key numbers per kind (``cli.md``'s ``result`` keys),
its looks and the level they spent, the projection of labels still needed where there
is one, its notes, and a plot (:mod:`app.ui.views.contracts.plots`). Above the cards:
"Machine labels accepted, by source" (:meth:`LabelReport.accepted`), the ledger's
health, and Certify all. Without an engine the panel says why, in the core's sentence
(:attr:`ProjectData.labels_absent`).

**Certify** never runs here: the button first says what the next look costs
(:mod:`app.core.contracts.look_cost`) in a confirmation, and only when the user agrees
emits :attr:`ContractsView.certify_requested` with the contract id (``""`` for all);
the main window runs the certification on its worker pool and shows the new status.
A card whose certify returned ``retest_available`` (only dev labels arrived and dev now
chooses another rule) also has **Retest at look N** (:mod:`app.ui.views.contracts.retest`):
confirmed the same way, it emits :attr:`ContractsView.retest_requested` with the contract
id, and the main window certifies that contract with ``retest``. The confirmation is
the instance attribute :attr:`ContractsView.confirm` so tests replace it.

Choices where the spec is silent:

- Contracts that spend no look (estimates, ``threshold_legacy``) keep their Certify
  button: certifying re-estimates them, and the confirmation says it spends nothing.
- A damaged ledger disables every Certify button (``certify`` would refuse anyway) and
  says so in red, with the core's problem sentence.
- Presentation mode also hides the calibration labellers of the labeling files, who
  need not be Potato annotators: they get letters after the study's annotators.
- The error-vs-coverage curve reads dev labels only
  (:mod:`app.core.contracts.kinds.coverage_curve`, a few milliseconds on the demos).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.contracts.kinds.coverage_curve import TierCurve
from app.core.contracts.label_report import LabelReport
from app.core.contracts.look_cost import certify_message, next_look_cost
from app.core.contracts.status import ContractStatus
from app.ui.views.base import NO_PROJECT, View, ViewContext, anonymous_aliases
from app.ui.views.contracts import plots
from app.ui.views.contracts.badge import StateBadge, potato_badge
from app.ui.views.contracts.retest import button_text, retest_message, window_note
from app.ui.views.contracts.text import (
    accepted_line,
    anonymize,
    key_numbers,
    looks_line,
    projection_line,
)
from app.ui.views.turns import next_turn

Confirm = Callable[[QWidget, str, str], bool]


def ask(parent: QWidget, title: str, text: str) -> bool:
    """The real confirmation: a modal question, No by default."""
    answer = QMessageBox.question(parent, title, text,
                                  QMessageBox.StandardButton.Yes
                                  | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


Defer = Callable[[Sequence[Callable[[], None]]], None]
"""Takes drawing steps to run, in order, on later event-loop turns (one per turn)."""

Curves = Mapping[str, list[TierCurve]]
"""Contract id → its error-versus-coverage curves, computed in the open job
(:attr:`~app.core.project.ProjectData.coverage_curves`): the GUI thread only draws."""


def _ppi_plot(status: ContractStatus, labels: LabelReport, curves: Curves) -> QWidget | None:
    data = labels.data.get(status.spec.schema)
    names = list(data.scheme.labels) if data is not None else []
    return plots.ppi_plot(status.result, names)


def _coverage_plot(status: ContractStatus, labels: LabelReport, curves: Curves,
                   defer: Defer | None = None) -> QWidget | None:
    mine = curves.get(status.spec.id)
    if not mine:
        return None
    rule = status.result.get("rule") or {}
    error = status.spec.params.get("error")
    return plots.coverage_plot(mine, rule, None if error is None else float(error),
                               defer=defer)


def _distributional_plot(status: ContractStatus, labels: LabelReport, curves: Curves
                         ) -> QWidget | None:
    limit = status.spec.params.get("max_distance")
    return plots.distributional_plot(status.result, None if limit is None else float(limit))


def _budget_plot(status: ContractStatus, labels: LabelReport, curves: Curves
                 ) -> QWidget | None:
    return plots.budget_plot(status.result)


_PLOTS: dict[str, Callable[[ContractStatus, LabelReport, Curves], QWidget | None]] = {
    "ppi": _ppi_plot, "selective_risk": _coverage_plot,
    "distributional": _distributional_plot, "budget_first": _budget_plot,
}
"""The kinds that have a plot, and how to draw it (the others have none)."""


def contract_plot(status: ContractStatus, labels: LabelReport, curves: Curves,
                  defer: Defer | None = None) -> QWidget | None:
    """The contract's plot, or ``None``; ``defer``: where the selective_risk plot hands
    the drawing of its curves for a later step."""
    kind = str(status.spec.kind)
    if kind == "selective_risk":
        return _coverage_plot(status, labels, curves, defer)
    draw = _PLOTS.get(kind)
    return None if draw is None else draw(status, labels, curves)


def people_aliases(labels: LabelReport, aliases: Mapping[str, str]) -> dict[str, str]:
    """``aliases`` extended to the people of the labeling files (calibration labellers
    need not be Potato annotators), lettered after the study's annotators."""
    people = {h.annotator for data in labels.data.values()
              for split in (data.dev, data.cert) for humans in split.values() for h in humans}
    for status in labels.contracts.values():
        people.update(status.result.get("per_annotator") or {})
    everyone = [*aliases, *sorted(people - set(aliases))]
    return {**anonymous_aliases(tuple(everyone)), **aliases}


class ContractCard(QFrame):
    """One contract: heading with badge and Certify, numbers and notes, and its plot."""

    def __init__(self, status: ContractStatus, labels: LabelReport, context: ViewContext,
                 can_certify: bool, delivered: int | None = None) -> None:
        super().__init__()
        self.contract_id = status.spec.id
        self.setObjectName("contractCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("QFrame#contractCard { background: #FFFFFF; border: 1px solid "
                           "#D0D0D0; border-radius: 6px; }")
        scale = context.font_scale
        title = QLabel(f"<span style='font-size:{round(14 * scale)}px'><b>"
                       f"{status.spec.id}</b></span> &nbsp; <span style='color:#555'>"
                       f"{status.spec.kind} · schema {status.spec.schema}</span>")
        self.badge = StateBadge(status.state, font_scale=scale)
        self.certify = QPushButton("Certify…")
        self.certify.setEnabled(can_certify)
        cost = next_look_cost(status)
        self.certify.setToolTip(cost.sentence())
        self.retest: QPushButton | None = None
        if status.retest_available:  # only dev labels arrived, dev chooses another rule
            self.retest = QPushButton(button_text(cost))
            self.retest.setEnabled(can_certify)
            self.retest.setToolTip(retest_message(cost))
        head = QHBoxLayout()
        head.addWidget(title, 1)
        self.potato_badge: StateBadge | None = None
        if labels.potato is not None:
            record = labels.potato.records.contracts.get(status.spec.id)
            audit = labels.audits.get(status.spec.id)
            self.potato_badge = potato_badge(
                None if record is None else record.to_json(), scale,
                None if audit is None else audit.verdict,
                () if audit is None else tuple(audit.differences))
            head.addWidget(self.potato_badge)
        head.addWidget(self.badge)
        head.addWidget(self.certify)
        if self.retest is not None:
            head.addWidget(self.retest)

        names = tuple(context.aliases)
        label = context.annotator_label
        self.numbers = QLabel("<br>".join([*key_numbers(status, label, delivered),
                                           looks_line(status)]))
        self.numbers.setWordWrap(True)
        self.numbers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text = QVBoxLayout()
        text.addWidget(self.numbers)
        projection = projection_line(status)
        self.projection = QLabel(f"<b>{projection}</b>" if projection else "")
        self.projection.setVisible(projection is not None)
        text.addWidget(self.projection)
        notes = [anonymize(window_note(n, cost) if status.retest_available else n, names,
                           label) for n in status.notes]
        self.notes = QLabel("<br>".join(f"• {n}" for n in notes))
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        self.notes.setVisible(bool(notes))
        text.addWidget(self.notes)
        text.addStretch(1)

        self._body = QHBoxLayout()
        self._body.addLayout(text, 1)
        self.plot: QWidget | None = None
        self._plot_inputs = (status, labels, context.project.coverage_curves
                             if context.project is not None else {})
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addLayout(self._body)

    def add_plot(self, defer: Defer | None = None) -> None:
        """Draw the card's plot (once): a step of its own, the costliest one (a
        pyqtgraph plot with its curves is 60-80 ms on the GUI thread, so with ``defer``
        the curves are handed on as more steps)."""
        if self.plot is None:
            self.plot = contract_plot(*self._plot_inputs, defer=defer)
            if self.plot is not None:
                self._body.addWidget(self.plot, 1)


class ContractsView(View):
    name = "contracts"
    title = "Contracts"

    certify_requested = Signal(str)
    """A contract id to certify, or ``""`` for all; emitted only after confirmation."""
    retest_requested = Signal(str)
    """A contract id to certify with ``retest``; emitted only after confirmation."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self.confirm: Confirm = ask
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.accepted = QLabel()
        self.accepted.setWordWrap(True)
        self.ledger = QLabel()
        self.ledger.setWordWrap(True)
        self.certify_all = QPushButton("Certify all…")
        self.certify_all.clicked.connect(lambda: self._certify(""))
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.certify_all)
        self.cards_box = QWidget()
        self.cards_box.setObjectName("cardsBox")
        self.cards_box.setStyleSheet("QWidget#cardsBox { background: #F3F3F3; }")
        self.cards_layout = QVBoxLayout(self.cards_box)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.cards_box)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.accepted)
        layout.addWidget(self.ledger)
        layout.addWidget(scroll, 1)
        self.cards: dict[str, ContractCard] = {}
        self._pending: list[Callable[[], object]] = []
        self._generation = 0
        self.show_context(self._context)

    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self._generation += 1
        self._pending = []
        self.scale_font(context)
        self._clear_cards()
        project = context.project
        labels = project.labels if project is not None else None
        self.certify_all.setEnabled(False)
        self.accepted.setText("")
        self.ledger.setText("")
        if project is None:
            self.heading.setText("")
            self.show_empty(NO_PROJECT)
            return
        if labels is None:
            self.heading.setText("")
            absent = project.labels_absent or "this project has no contracts"
            self.show_empty(f"No contracts: {absent}.")
            return
        self.hide_empty()
        n = len(labels.contracts)
        self.heading.setText(f"<b>{n} contract{'s' if n != 1 else ''}</b> on "
                             f"{len(labels.data)} schema{'s' if len(labels.data) != 1 else ''}")
        accepted = project.accepted if project.accepted is not None else labels.accepted()
        self.accepted.setText(accepted_line(accepted))
        ledger_ok = bool(labels.ledger.get("ok", True))
        if not ledger_ok:
            self.ledger.setText("<span style='color:#C0392B'><b>The ledger is damaged:</b> "
                                f"{labels.ledger.get('problem')}. Certifying is refused until "
                                "the damage is acknowledged (accord label certify "
                                "--acknowledge-ledger).</span>")
        self.certify_all.setEnabled(ledger_ok and n > 0)
        if context.anonymous:
            context = context.with_(aliases=people_aliases(labels, context.aliases))
        steps: list[Callable[[], object]] = []
        for ident, status in labels.contracts.items():
            by_source = (accepted.get(status.spec.schema) or {}).get("by_source") or {}
            steps.append(partial(self._add_card, ident, status, labels, context, ledger_ok,
                                 sum(by_source.values())))
            steps.append(partial(self._add_plot, ident))
        steps.append(partial(self.cards_layout.addStretch, 1))
        self._pending = steps
        self._run_pending(self._generation)

    def _add_card(self, ident: str, status: ContractStatus, labels: LabelReport,
                  context: ViewContext, ledger_ok: bool, delivered: int | None = None
                  ) -> None:
        card = ContractCard(status, labels, context, ledger_ok, delivered)
        card.certify.clicked.connect(lambda _=False, c=ident: self._certify(c))
        if card.retest is not None:
            card.retest.clicked.connect(lambda _=False, c=ident: self._retest(c))
        self.cards_layout.addWidget(card)
        self.cards[ident] = card

    def _add_plot(self, ident: str) -> None:
        self.cards[ident].add_plot(defer=self._run_next)

    def _run_next(self, steps: Sequence[Callable[[], object]]) -> None:
        """``steps`` before the other pending ones, in order."""
        self._pending[0:0] = steps

    def _run_pending(self, generation: int) -> None:
        """One step of the cards' building per event-loop turn, so the window paints in
        between: building six cards with their plots at once held the GUI thread
        170-240 ms (``tests/benchmarks/bench_gui_stall.py``). A newer
        :meth:`show_context` drops what is left of the older one."""
        if generation != self._generation or not self._pending:
            return
        self._pending.pop(0)()
        if self._pending:
            next_turn(self, partial(self._run_pending, generation))

    @property
    def building(self) -> bool:
        """Whether cards are still being built, a step per event-loop turn."""
        return bool(self._pending)

    def complete(self) -> None:
        """Build what is still pending now (tests, and anything that reads
        :attr:`cards` before the event loop ran)."""
        while self._pending:
            self._pending.pop(0)()

    def _clear_cards(self) -> None:
        while self.cards_layout.count():
            child = self.cards_layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)  # out of the tree now, deleted later
                widget.deleteLater()
        self.cards = {}

    def look_cost_text(self, contract: str) -> str:
        """What certifying ``contract`` (``""``: all) costs, as the confirmation says it."""
        project = self._context.project
        labels = project.labels if project is not None else None
        if labels is None:
            return ""
        statuses = [s for i, s in labels.contracts.items() if contract in ("", i)]
        return certify_message(next_look_cost(s) for s in statuses)

    def _certify(self, contract: str) -> None:
        text = self.look_cost_text(contract)
        if not text:
            return
        title = f"Certify '{contract}'?" if contract else "Certify every contract?"
        if self.confirm(self, title, text + "\n\nCertify now?"):
            self.certify_requested.emit(contract)

    def _retest(self, contract: str) -> None:
        project = self._context.project
        labels = project.labels if project is not None else None
        status = None if labels is None else labels.contracts.get(contract)
        if status is None:
            return
        text = retest_message(next_look_cost(status))
        if self.confirm(self, f"Retest '{contract}'?", text + "\n\nRetest now?"):
            self.retest_requested.emit(contract)
