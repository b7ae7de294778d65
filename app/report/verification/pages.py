"""Do the pages show the attached certificate? Render it again and compare with what a viewer sees.

The certificate's pages are a function of its data (:func:`app.report.pdf.render_pdf` is
deterministic: the same certificate gives the same PDF bytes), so ``verify`` renders the
attached certificate again and compares, page by page, what a reader of the file sees:

- the number of pages, and which printed page is which (a page removed, repeated, added or
  moved is named as such, by its first words);
- the text of each page (:mod:`.text`: any changed number, hash, date or word);
- the page boxes (a crop hides a row) and the annotations (a note laid over a number);
- the document's metadata (:mod:`.metadata`: dates, title, XMP, what the catalogue holds);
- when this machine renders with the same Qt as the file's (its ``/Producer``): the drawing
  itself, contents, fonts and images (:mod:`.fingerprint`), so a white box over a row, a
  recoloured verdict or a font whose "0" draws a "9" is caught though the text is unchanged.

With another Qt the drawing is not compared (the glyphs and images would differ for reasons
no one chose) and :attr:`PageCheck.undrawn` says so; since the ``/Producer`` is the file's
own word, ``verify`` then fails unless ``--text-only`` accepts a text-only check.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import pypdf
from pypdf.generic import DictionaryObject

from app.report.verification.fingerprint import digest
from app.report.verification.metadata import metadata_problems, producer
from app.report.verification.structure import READ_ERRORS, ReadPdf, parse
from app.report.verification.text import first_words, normalise, text_differences

BOXES = ("/MediaBox", "/CropBox", "/TrimBox", "/BleedBox", "/ArtBox", "/Rotate", "/UserUnit")


@dataclass
class PageCheck:
    """What :func:`check_pages` found: problems (verify fails) and notes (it says so)."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    undrawn: str | None = None
    """Why the drawing was not compared (another Qt), ``None`` when it was. The file's
    ``/Producer`` is not to be trusted: ``verify`` fails on this unless told that a text-only
    check will do (``--text-only``)."""


def _texts(reader: pypdf.PdfReader) -> list[str]:
    out: list[str] = []
    for page in reader.pages:
        try:
            out.append(normalise(page.extract_text()))
        except READ_ERRORS:
            out.append("")
    return out


def _annotations(page: DictionaryObject) -> list[str]:
    found = []
    for ref in page.get("/Annots") or []:
        annot = ref.get_object()
        if isinstance(annot, DictionaryObject):
            found.append(str(annot.get("/Subtype", "?")).lstrip("/"))
    return found


def _number(value: Any) -> str:
    try:
        return format(float(value), "g")  # 595 and 595.0 are one width
    except (TypeError, ValueError):
        return repr(value)


def _page_shape(page: DictionaryObject) -> dict[str, str]:
    shape = {}
    for key in BOXES:
        value = page.get(key)
        if value is None:
            continue
        value = value.get_object()
        parts = value if isinstance(value, list) else [value]
        shape[key.lstrip("/")] = "[" + " ".join(_number(v) for v in parts) + "]"
    return shape


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _tally(printed: int, expected: int, present: int, repeats: int, foreign: int,
           missing: int) -> str:
    """The page counts in one sentence whose parts add up: the PDF's pages are the
    certificate's pages found, repeats and pages not of the certificate; the certificate's
    are those found and those missing."""
    if printed == expected:
        head = (f"the PDF has {_plural(printed, 'page', 'pages')}, as many as the attached "
                "certificate prints")
    else:
        head = (f"the PDF has {_plural(printed, 'page', 'pages')} where the attached certificate "
                f"prints {expected}")
    parts = [f"the certificate's {expected} pages" if present == expected
             else f"{present} of the certificate's {expected} pages"]
    if repeats:
        parts.append(f"{repeats} that {'repeats' if repeats == 1 else 'repeat'} one of them")
    if foreign:
        parts.append(f"{foreign} that {'is' if foreign == 1 else 'are'} not the certificate's")
    body = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    gone = f"; {missing} {'is' if missing == 1 else 'are'} missing" if missing else ""
    return f"{head}: {body}{gone}"


def _order(printed: list[str], expected: list[str]) -> tuple[list[int | None], list[str]]:
    """For each printed page, the certificate page with the same text (``None`` when none),
    and the sentences on pages removed, repeated, added or moved, after one that counts
    them (its parts add up to both page counts)."""
    unused = list(range(len(expected)))
    match: list[int | None] = []
    for text in printed:
        hit = next((j for j in unused if expected[j] == text), None)
        if hit is None:
            hit = next((j for j in range(len(expected)) if expected[j] == text), None)
        else:
            unused.remove(hit)
        match.append(hit)
    same_count = len(printed) == len(expected)
    # With as many pages as the certificate, a page whose text matches none is compared in
    # place, word by word (an edited page): it stands for the certificate's page there,
    # unless that page was found elsewhere.
    standing = (
        {i for i, hit in enumerate(match) if hit is None and i in unused} if same_count else set()
    )
    missing = [j for j in unused if j not in standing]
    out = [f"page {j + 1} of the certificate (“{first_words(expected[j])}”) is missing"
           for j in missing]
    seen: set[int] = set()
    repeats = foreign = 0
    for i, hit in enumerate(match):
        if hit is not None and hit in seen:
            repeats += 1
            out.append(f"page {i + 1} repeats page {hit + 1} of the certificate")
        elif hit is None and i not in standing:
            foreign += 1
            out.append(
                f"page {i + 1} (“{first_words(printed[i])}”) is not a page of the certificate"
            )
        if hit is not None:
            seen.add(hit)
    if not same_count or repeats or missing:
        present = len(printed) - repeats - foreign
        out.insert(0, _tally(len(printed), len(expected), present, repeats, foreign, len(missing)))
    found = [j for j in match if j is not None]
    if len(set(found)) == len(found) == len(expected) and found != sorted(found):
        out.append(
            "the pages are in another order: "
            + ", ".join(
                f"page {i + 1} is the certificate's page {j + 1}"
                for i, j in enumerate(match)
                if j is not None and i != j
            )
        )
    return match, out


def _page_problems(
    n: int, page: DictionaryObject, want: DictionaryObject, drawing: bool
) -> list[str]:
    out: list[str] = []
    got, wanted = _page_shape(page), _page_shape(want)
    if got != wanted:
        changed = sorted(k for k in set(got) | set(wanted) if got.get(k) != wanted.get(k))
        out.append(
            f"page {n}: its size or crop differs from the certificate's ("
            + "; ".join(
                f"{k} {got.get(k, 'absent')} in the PDF, {wanted.get(k, 'absent')} rendered"
                for k in changed
            )
            + "): a viewer shows a different part of the page"
        )
    if _annotations(page) != _annotations(want):
        added = ", ".join(_annotations(page)) or "none"
        out.append(
            f"page {n} carries annotations ({added}) the certificate does not "
            f"({', '.join(_annotations(want)) or 'none'}): a viewer draws them over "
            "the page"
        )
    if drawing:
        if digest(page.get("/Contents")) != digest(want.get("/Contents")):
            out.append(
                f"page {n}: its drawing differs from what the attached certificate "
                "renders to (shapes, colours or positions)"
            )
        if digest(page.get("/Resources")) != digest(want.get("/Resources")):
            out.append(
                f"page {n}: its fonts or images differ from those the attached "
                "certificate renders with"
            )
    return out


def compare_pages(read: ReadPdf, expected: ReadPdf) -> PageCheck:
    """Every difference between the file's pages and ``expected``'s (the re-rendering)."""
    check = PageCheck()
    printed, wanted = _texts(read.reader), _texts(expected.reader)
    match, check.problems = _order(printed, wanted)
    drawing = producer(read.reader) == producer(expected.reader)
    if not drawing:
        check.undrawn = (
            f"the drawing was not compared: the PDF says it was made by "
            f"{producer(read.reader)!r}, this Accord renders with {producer(expected.reader)!r} "
            "(the text, boxes, annotations and metadata were)"
        )
    pages, wants = read.reader.pages, expected.reader.pages
    for i, j in enumerate(match):
        if j is None and len(printed) == len(wanted):
            j = i  # same count: compare in place, word by word
            check.problems += text_differences(i + 1, printed[i], wanted[i])
        if j is not None:
            check.problems += _page_problems(i + 1, pages[i], wants[j], drawing)
    check.problems += metadata_problems(read.reader, expected.reader, drawing)
    return check


_RENDERED: dict[str, bytes] = {}
"""The last renderings by the SHA-256 of the certificate's canonical JSON: rendering is
deterministic, so a process that verifies the same certificate again (a test of many
tamperings, a GUI) renders it once."""


def rendered(certificate: dict[str, Any]) -> ReadPdf:
    """The attached certificate rendered again (needs a QGuiApplication), parsed."""
    from app.core.certificate.build import canonical_json
    from app.report.pdf import render_pdf

    key = hashlib.sha256(canonical_json(certificate)).hexdigest()
    if key not in _RENDERED:
        _RENDERED.clear()
        _RENDERED[key] = render_pdf(certificate)
    return parse(_RENDERED[key])


def check_pages(read: ReadPdf, certificate: dict[str, Any]) -> PageCheck:
    """Render ``certificate`` again and compare it with ``read``."""
    return compare_pages(read, rendered(certificate))
