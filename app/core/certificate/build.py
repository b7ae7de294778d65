"""The certificate as data: what the PDF prints and what ``accord verify`` checks.

A certificate is one JSON object built from one :class:`~app.core.project.ProjectData`
(architecture rule 5: the GUI, ``label status --json`` and the PDF read the same result
objects, so they cannot disagree). It says what was promised and at what confidence
(every contract with its parameters, state, looks, level spent, tests, rule, coverage,
projection and notes), what was delivered ("Machine labels accepted, by source"), what
is *not* certified (``threshold_legacy`` labels with their measured error; schemas no
loss family covers), the agreement between people with its coverage, and exactly which
inputs all of that came from (SHA-256 of every input file, the ledger's head hash).

**Integrity.** :func:`canonical_json` writes the object with sorted keys, no spaces,
UTF-8 and no NaN, so equal data give equal bytes; ``content_hash`` is the SHA-256 of the
canonical JSON of everything else. An edited embedded certificate no longer matches its
hash. (A hash is not a signature: whoever edits the data can recompute it. That is what
``verify --project`` is for: it recomputes the whole certificate from the project.)

**Time.** The only clock reading is ``generated_at`` (UTC, to the second), stated once
and passed in by the caller, so the same inputs and the same stated time give the same
certificate, byte for byte. ``verify`` ignores it.

Choices where the spec is silent:

- The certificate is built with ``status`` semantics (nothing is tested or written):
  ``accord label certify`` is the one step that spends looks; a certificate reports the
  stored results. ``verify --project`` recomputes the same way.
- The agreement section is ``accord agreement --json`` without its ``project`` key (the
  path as typed differs between machines; the folder's name is under ``project``).
- ``claim`` is a sentence per contract saying what it promises, in words; the PDF's
  summary prints it and a reader of the JSON need not know the kinds.
- ``panels`` (per schema with contracts) counts the calibration items several people
  labelled (:mod:`app.core.certificate.panels`): the agreement section says what the
  contracts compared with even when nobody answered the scheme in the annotation files.
- ``prepared`` is ``{"for", "by"}`` as given to ``accord certificate --for --by``.
- ``export_statuses`` counts the export status of every item and schema with contracts
  by status and origin, Potato 2.12.1's (``accepted:human``, ``accepted:auto``,
  ``accepted_uncertified:auto``, ``pending``).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app import __version__
from app.core.certificate.curves import dev_curves
from app.core.certificate.inputs import hash_inputs, ledger_summary, relative_name
from app.core.certificate.panels import scheme_panels
from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE, ContractSpec
from app.core.contracts.kinds.registry import claim, kind_info
from app.core.contracts.label_report import LabelReport
from app.core.contracts.labels.families import default_tolerance, loss_family
from app.core.formats.potato.config import find_config
from app.core.formats.reading.yaml_file import read_yaml_lines
from app.core.model import Study
from app.core.progress import Job, Progress, scaled
from app.core.project import ProjectData

FORMAT = "accord-certificate-v1"
ATTACHMENT_NAME = "accord-certificate.json"
VOLATILE_KEYS = ("generated_at", "content_hash")
"""Keys ``verify`` does not compare: the stated time and the hash derived from it."""


def utc_now() -> str:
    """The current time as the certificate states it: ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no spaces, UTF-8, NaN refused: equal data give equal bytes."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def content_hash(certificate: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of the certificate without its ``content_hash``."""
    body = {k: v for k, v in certificate.items() if k != "content_hash"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def seal(body: dict[str, Any]) -> dict[str, Any]:
    """The certificate with its ``content_hash``."""
    return {**body, "content_hash": content_hash(body)}


def _plain(value: Any) -> Any:
    """A JSON round trip: tuples become lists, keys strings, exactly as a reader sees them."""
    return json.loads(json.dumps(value, allow_nan=False, default=_scalar))


def _scalar(value: Any) -> Any:
    """NumPy scalars and arrays through ``tolist()``; anything else by its text."""
    to_list = getattr(value, "tolist", None)
    return to_list() if callable(to_list) else str(value)


def prepared(
    prepared_for: str | None = None, prepared_by: str | None = None
) -> dict[str, str | None]:
    """The ``prepared`` entry: who the certificate is for and who prepared it (the CLI's
    ``--for`` and ``--by``), stripped, ``None`` when not given."""

    def clean(value: str | None) -> str | None:
        return value.strip() or None if isinstance(value, str) else None

    return {"for": clean(prepared_for), "by": clean(prepared_by)}


def build_certificate(
    project: ProjectData,
    *,
    generated_at: str,
    prepared_for: str | None = None,
    prepared_by: str | None = None,
) -> Job[dict[str, Any]]:
    """The certificate of ``project`` stated at ``generated_at`` (see :func:`utc_now`),
    prepared for ``prepared_for`` by ``prepared_by`` (both printed on page 1, both
    covered by the content hash; ``verify`` recomputes with the stored ones)."""
    yield Progress(0, 1, "hashing inputs")
    inputs = yield from scaled(hash_inputs(project.path), 0.0, 0.6, 1.0)
    yield Progress(0.6, 1.0, "contracts")
    agreement = project.report.to_json()
    agreement.pop("project", None)
    study = project.study
    body: dict[str, Any] = {
        "format": FORMAT,
        "accord_version": __version__,
        "generated_at": generated_at,
        "prepared": prepared(prepared_for, prepared_by),
        "project": {
            "name": study_name(project.path),
            "folder": project.path.resolve().name,
            "n_items": len(study.items),
            "n_annotators": len(study.annotators),
            "annotators": list(study.annotators),
            "schemes": {n: s.annotation_type for n, s in study.schemes.items()},
            "notes": list(study.notes),
        },
        "inputs": inputs,
        "ledger": {**ledger_summary(project.path), "ok": True, "problem": None},
        "agreement": agreement,
        "unsupported_schemas": [n for n, s in study.schemes.items() if loss_family(s) is None],
        "configuration": None,
        "contracts": {},
        "machine_labels_accepted": {},
        "export_statuses": {},
        "uncertified": [],
        "labels_absent": project.labels_absent,
        "panels": {},
    }
    if project.labels is not None:
        body.update(_labels_part(project.labels, project))
    yield Progress(1.0, 1.0, "certificate ready")
    return seal(_plain(body))


def _labels_part(labels: LabelReport, project: ProjectData) -> dict[str, Any]:
    status = labels.to_json()
    config = labels.config
    root = project.path if project.path.is_dir() else project.path.parent
    configuration = {
        "source": relative_name(config.source, root),
        "cascade": [{"name": t.name, "source": str(t.source)} for t in config.cascade],
        "humans": {
            "dev_fraction": config.humans.dev_fraction,
            "overlap": config.humans.overlap,
            "overlap_k": config.humans.overlap_k,
            "distribution_k": config.humans.distribution_k,
        },
        "budgets": {
            "human_labels": config.budgets.human_labels,
            "crowd_reward_usd": config.budgets.crowd_reward_usd,
        },
        "contracts": [
            {
                "id": c.id,
                "kind": str(c.kind),
                "schema": c.schema,
                "parameters": dict(c.params),
                "renamed_from": c.renamed_from,
            }
            for c in config.contracts
        ],
    }
    contracts: dict[str, Any] = {}
    for spec in config.contracts:
        entry = status["contracts"][spec.id]
        result = entry.get("result", {})
        params = _used_parameters(spec, labels.study)
        contract = {
            "kind": entry["kind"],
            "schema": entry["schema"],
            "parameters": params,
            "renamed_from": spec.renamed_from,
            "state": entry["state"],
            "certifies": _certifies(entry["kind"], entry["state"]),
            "confidence": params.get("confidence"),
            "claim": claim(entry["kind"], entry["schema"], params),
            "looks": entry["looks"],
            "level_spent": entry["level_spent"],
            "tests": result.get("tests", []),
            "rule": result.get("rule"),
            "accepted_by_tier": result.get("accepted_by_tier"),
            "projection": result.get("projection"),
            "result": result,
            "notes": entry.get("notes", []),
        }
        if "potato" in entry:  # a Potato project: Potato's record and its audit
            contract["potato"] = entry["potato"]
            contract["audit"] = entry.get("audit")
        if kind_info(spec.kind).spends_looks and spec.schema in labels.data:
            contract["dev_curve"] = dev_curves(spec, labels.data[spec.schema], result.get("rule"))
        contracts[spec.id] = contract
    statuses: dict[str, Counter[str]] = {}
    for row in labels.export():
        key = (
            row["status"]
            if row["label_origin"] is None
            else f"{row['status']}:{row['label_origin']}"
        )
        statuses.setdefault(row["schema"], Counter())[key] += 1
    accepted = status["accepted"]
    uncertified = [
        {
            "contract": ident,
            "schema": c["schema"],
            "threshold": c["result"].get("threshold"),
            "measured_error": c["result"].get("measured_error"),
            "measured_error_reason": c["result"].get("measured_error_reason"),
            "accepted_uncertified": statuses.get(c["schema"], Counter())[
                "accepted_uncertified:auto"
            ],
        }
        for ident, c in contracts.items()
        if kind_info(c["kind"]).certifies is False
    ]
    panels = {
        schema: found
        for schema in dict.fromkeys(c.schema for c in config.contracts)
        if schema in labels.data and (found := scheme_panels(labels.data[schema])) is not None
    }
    for schema, found in panels.items():
        found["contracts"] = [c.id for c in config.contracts if c.schema == schema]
    return {
        "panels": panels,
        "configuration": configuration,
        "contracts": contracts,
        "machine_labels_accepted": {
            schema: {
                "by_source": dict(a["by_source"]),
                "total": sum(a["by_source"].values()),
                "certified": statuses.get(schema, Counter())["accepted:auto"] > 0,
            }
            for schema, a in accepted.items()
        },
        "export_statuses": {s: dict(sorted(c.items())) for s, c in statuses.items()},
        "uncertified": uncertified,
        "unsupported_schemas": status["unsupported_schemas"],
        "ledger": {
            **ledger_summary(project.path),
            "ok": bool(status["ledger"].get("ok", True)),
            "problem": status["ledger"].get("problem"),
        },
    }


def study_name(project: Path) -> str:
    """The study's own name, Potato's ``annotation_task_name``; the folder's when the
    configuration gives none (a certificate names what was studied, not where the files
    happen to be)."""
    raw, _ = read_yaml_lines(find_config(project))
    name = raw.get("annotation_task_name") if isinstance(raw, dict) else None
    if isinstance(name, str) and name.strip():
        return name.strip()
    return project.resolve().name


TOLERANCE_KINDS = frozenset({"selective_risk", "no_worse_than_human"})


def _used_parameters(spec: ContractSpec, study: Study) -> dict[str, Any]:
    """The parameters Potato's method evaluated the contract with: the keys as written,
    the confidence (default 0.9) and, for the kinds that compare labels, the tolerance
    (Potato's default for the schema's family when none is written)."""
    used = {k: v for k, v in spec.params.items() if k in spec.written and v is not None}
    used["confidence"] = float(spec.params.get("confidence") or DEFAULT_CONFIDENCE)
    if (
        str(spec.kind) in TOLERANCE_KINDS
        and "tolerance" not in used
        and spec.schema in study.schemes
    ):
        used["tolerance"] = default_tolerance(study.schemes[spec.schema])
    return used


def _certifies(kind: str, state: str) -> bool | None:
    """``True``/``False`` for kinds that certify labels; ``None`` for estimates."""
    certifies = kind_info(kind).certifies
    return state == "met" if certifies else certifies
